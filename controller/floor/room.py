"""The room as the console shows it: a tile per table, built only from the tables' redacted
live topics (state, status, alerts, and ``alert_ack`` events), each payload checked against
the contract's schema first (anyone on the venue network may publish anything).

A tile copies a whitelist of fields, never a whole payload: the seats' player, stack, bet,
status and how many cards they hold, never which; the dealer on duty (a staff id) and the
table's storage health (``ok`` / ``degraded`` with each reason's code and detail). It carries
the table's name and number from the venue file (controller/floor/venue.py).

The room also holds the console's own link to the broker (connected or not, since when, the
last message): the header's status, and what makes every tile stale while the broker is
lost. The feed holds the open alerts only: an alert the table closed (its ``alert_ack``
event) leaves it.
"""

from __future__ import annotations

import functools
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.floor.venue import Venue
from controller.link import schemas
from controller.link.errors import SchemaViolation

_ID = re.compile(r"[A-Za-z0-9-]{1,32}")
KINDS = {"state": "state", "status": "status", "alerts": "alert", "events": "event"}
SEAT_FIELDS = ("seat", "player_id", "name", "stack", "bet", "status", "cards_held")
STATE_FIELDS: tuple[str, ...] = ("hand_no", "street", "pot", "button", "to_act", "profile",
                                 "badge_reader", "dealer")  # fmt: skip
STATE_FIELDS += ("table_seats",)  # the table's seats (its zone map): the floor actions' checks
FEED_SIZE = 200
#: the open alerts a tile keeps, as many as the table itself holds (controller/daemon/service.py
#: keeps its last 100 open: an older one can no longer be acknowledged there)
OPEN_ALERTS = 100


@functools.lru_cache(maxsize=4096)  # a room's topics recur (issue 23: 2-3 % of the console's CPU)
def parse_topic(topic: str) -> tuple[str, str, str] | None:
    """(venue, table, kind) of ``railguard/<venue>/<table>/<kind>``, else None."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "railguard" or parts[3] not in KINDS:
        return None
    if not (_ID.fullmatch(parts[1]) and _ID.fullmatch(parts[2])):
        return None
    return parts[1], parts[2], parts[3]


def _alert_view(venue: str, table: str, body: dict[str, Any], now: float) -> dict[str, Any]:
    keys = ("alert_id", "code", "severity", "clause", "remedy", "seat", "message", "hand_no", "ts")
    return {"venue": venue, "table": table, **{k: body.get(k) for k in keys}, "received": now}


@dataclass
class Tile:
    venue: str
    table: str
    name: str = ""
    number: int | None = None
    status: str = "unknown"
    last_seen: float | None = None
    state: dict[str, Any] = field(default_factory=dict)
    alerts: dict[str, dict[str, Any]] = field(default_factory=dict)  # open, by alert_id

    @property
    def key(self) -> str:
        return f"{self.venue}/{self.table}"

    def view(self) -> dict[str, Any]:
        return {"key": self.key, "venue": self.venue, "table": self.table,
                "name": self.name or self.table, "number": self.number,
                "status": self.status, "last_seen": self.last_seen, "state": self.state,
                "alerts": list(self.alerts.values())}  # fmt: skip


_SEAT_KEYS = frozenset(SEAT_FIELDS)
LEVEL_FIELDS = ("level", "small_blind", "big_blind", "ante")
_LEVEL_KEYS = frozenset(LEVEL_FIELDS)


def _state_view(body: dict[str, Any]) -> dict[str, Any]:
    """The tile's copy of a state payload: the whitelisted fields. A seat or level object
    whose keys are all whitelisted (every one a table publishes) is kept as parsed rather
    than copied key by key, and so is the seats list when every seat is (issue 23: a fifth
    of the console's work per state was these copies); the payload is the room's, parsed
    afresh for each message."""
    out: dict[str, Any] = dict(zip(STATE_FIELDS, map(body.get, STATE_FIELDS), strict=True))
    for key in ("level", "pending_level"):  # in force; set for the next hand (G11)
        level = body.get(key)
        if isinstance(level, dict):
            out[key] = (level if level.keys() == _LEVEL_KEYS
                        else {k: level.get(k) for k in LEVEL_FIELDS})  # fmt: skip
    storage = body.get("storage")  # the table's own store; absent from older tables
    if isinstance(storage, dict):
        out["storage"] = {"health": storage.get("health"),
                          "reasons": [{"code": r.get("code"), "detail": r.get("detail")}
                                      for r in storage.get("reasons", [])]}  # fmt: skip
    else:
        out["storage"] = None
    out["board_cards"] = len(body.get("board") or [])
    seats = body.get("seats", [])
    for s in seats:
        if not (isinstance(s, dict) and s.keys() <= _SEAT_KEYS):
            seats = [s if s.keys() <= _SEAT_KEYS else {k: s[k] for k in SEAT_FIELDS if k in s}
                     for s in seats if isinstance(s, dict)]  # fmt: skip
            break
    out["seats"] = seats
    return out


class Room:
    """Every table seen on the broker; :meth:`apply` returns what changed (for the stream)."""

    def __init__(self, venue: Venue | None = None) -> None:
        self.venue = venue if venue is not None else Venue()
        self.tiles: dict[str, Tile] = {}
        self.feed: deque[dict[str, Any]] = deque(maxlen=FEED_SIZE)  # open alerts, newest first
        self.refused = 0  # payloads dropped: not JSON objects or not the contract's schema
        #: the console's own link to the broker (FloorLink sets it through :meth:`link_state`)
        self.link: dict[str, Any] = {"connected": False, "since": None, "reason": "starting",
                                     "last_message": None}  # fmt: skip

    def tile(self, venue: str, table: str) -> Tile:
        key = f"{venue}/{table}"
        t = self.tiles.get(key)
        if t is None:
            named = self.venue.name_of(venue, table)
            t = self.tiles[key] = Tile(venue, table, named.name, named.number)
        return t

    def link_state(self, connected: bool, now: float, reason: str = "") -> list[dict[str, Any]]:
        """The console's broker link went up or down: the change for the stream."""
        since = self.link["since"]
        if since is None or connected != self.link["connected"]:
            since = now  # when it went up, or down
        self.link = {**self.link, "connected": connected, "since": since, "reason": reason}
        return [{"type": "link", "link": dict(self.link), "now": now}]

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        return {"tiles": [t.view() for t in sorted(self.tiles.values(), key=lambda t: t.key)],
                "feed": list(self.feed), "link": dict(self.link),
                "settings": self.venue.settings(),
                "now": time.time() if now is None else now}  # fmt: skip

    def apply(self, topic: str, body: object, now: float) -> list[dict[str, Any]]:
        where = parse_topic(topic)
        if where is None:
            return []
        venue, table, kind = where
        try:
            schemas.validate(KINDS[kind], body)
        except SchemaViolation:
            self.refused += 1
            return []
        assert isinstance(body, dict)
        if kind == "events" and body.get("kind") != "alert_ack":
            return []  # the console shows the state, not the event stream
        t = self.tile(venue, table)
        t.last_seen = self.link["last_message"] = now
        out: list[dict[str, Any]] = []
        if kind == "status":
            t.status = str(body["status"])
        elif kind == "state":
            t.status = "online"
            t.state = _state_view(body)
        elif kind == "alerts":
            a = {
                **_alert_view(venue, table, body, now),
                "name": t.name or table,
                "number": t.number,
            }
            aid = str(a["alert_id"])
            if aid in t.alerts:
                return []  # the same alert again (QoS 1 delivers at least once)
            t.alerts[aid] = a
            while len(t.alerts) > OPEN_ALERTS:
                gone = next(iter(t.alerts))
                del t.alerts[gone]
                self._unfeed(venue, table, gone)
            self.feed.appendleft(a)
            out.append({"type": "alert", "alert": a})
        else:
            data = body.get("data") or {}
            aid, by = str(data.get("alert_id")), data.get("by")
            t.alerts.pop(aid, None)
            self._unfeed(venue, table, aid)
            out.append({"type": "ack", "key": t.key, "alert_id": aid, "by": by})
        out.append({"type": "tile", "tile": t.view()})
        return out

    def closed_at_table(self, venue: str, table: str, alert_id: str) -> list[dict[str, Any]]:
        """The table answered that ``alert_id`` is not open there (a restarted table forgets
        its open alerts; it keeps its last 100): it leaves the tile and the feed as if the
        table had acknowledged it, so the floor is not left with an alert nobody can clear."""
        t = self.tiles.get(f"{venue}/{table}")
        if t is None or t.alerts.pop(alert_id, None) is None:
            return []
        self._unfeed(venue, table, alert_id)
        return [{"type": "ack", "key": t.key, "alert_id": alert_id, "by": None},
                {"type": "tile", "tile": t.view()}]  # fmt: skip

    def _unfeed(self, venue: str, table: str, alert_id: str) -> None:
        """The table closed the alert: it leaves the feed."""
        for entry in list(self.feed):
            if (entry["alert_id"], entry["table"], entry["venue"]) == (alert_id, table, venue):
                self.feed.remove(entry)
