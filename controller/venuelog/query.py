"""A search of stored hands (the floor console's hand history), as SQL for both back-ends.

The filters go into the database. The table and the time range are columns of ``hands``
(``ended_at`` has an index). The dealer, the players and the alerts are **tags**: rows of
``hand_tags`` (``kind``, ``value``, ``hand_id``; the primary key is their index) the logger
writes with each hand (:func:`tags`), and writes once for the hands already stored the first
time a logger of this version opens an older store (the ``store_meta`` row ``tags`` says it
is done). A store no such logger has opened yet (the console opens stores read-only) is
searched with SQLite's JSON functions over the stored record instead (``json_extract``,
``json_each``): the same answers, slower (``bench/history_search.py``). A PostgreSQL store is
tagged whenever it is opened (``PostgresHandStore``), so it is always searched by its tags.

- ``table``: the table's id in any case (ids are letters, digits and ``-``).
- ``dealer``: the envelope's ``dealer_id`` (the badge of the dealer logged in), exactly.
- ``player``: a player of the hand whose venue player id (``player_ref``) is the text, or
  whose name is the text in any case.
- ``alert``: a hand whose record carries an alert of that code (``ohh.alerts``; records of
  tables older than that field carry none).
- ``since`` / ``until``: ``since <= ended_at < until`` (Unix seconds).

Newest first (``ended_at``, then ``hand_id``), ``limit`` hands from ``offset``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from controller.link.errors import BadInput

Dialect = Literal["sqlite", "postgres"]
MAX_LIMIT = 500
_CODE = re.compile(r"^[A-Z][A-Z0-9_]{0,47}$")


@dataclass(frozen=True, slots=True)
class HandQuery:
    venue: str | None = None
    table: str | None = None
    since: float | None = None
    until: float | None = None
    dealer: str | None = None
    player: str | None = None
    alert: str | None = None
    limit: int = 50
    offset: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= MAX_LIMIT:
            raise BadInput(f"limit {self.limit}: expected 1 to {MAX_LIMIT}")
        if self.offset < 0:
            raise BadInput(f"offset {self.offset}: expected 0 or more")
        if self.since is not None and self.until is not None and self.until <= self.since:
            raise BadInput("the time range ends before it starts (until <= since)")
        if self.alert is not None and not _CODE.match(self.alert):
            raise BadInput(f"alert {self.alert!r}: expected an alert code such as EXPOSED_CARD")


# the columns' filters (both dialects; {m} is the parameter mark)
_COLUMNS = {
    "venue": "venue = {m}",
    "table": "lower(table_id) = lower({m})",
    "since": "ended_at >= {m}",
    "until": "ended_at < {m}",
}
# an untagged SQLite store (read-only, not yet opened by a logger of this version): the
# record's JSON. (A PostgreSQL store is tagged when opened: PostgresHandStore does it.)
_JSON_SQLITE = {
    "dealer": "json_extract(body, '$.dealer_id') = {m}",
    "player": "EXISTS (SELECT 1 FROM json_each(body, '$.ohh.players') AS p"
    " WHERE json_extract(p.value, '$.player_ref') = {m}"
    " OR lower(json_extract(p.value, '$.name')) = {m})",
    "alert": "EXISTS (SELECT 1 FROM json_each(body, '$.ohh.alerts') AS a"
    " WHERE json_extract(a.value, '$.code') = {m})",
}
# the same filters on the tags (both dialects)
_TAGGED = {
    "dealer": "hand_id IN (SELECT hand_id FROM hand_tags WHERE kind = 'dealer' AND value = {m})",
    "player": "hand_id IN (SELECT hand_id FROM hand_tags WHERE (kind = 'player' AND value = {m})"
    " OR (kind = 'name' AND value = {m}))",
    "alert": "hand_id IN (SELECT hand_id FROM hand_tags WHERE kind = 'alert' AND value = {m})",
}
TAGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS hand_tags (
    hand_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (kind, value, hand_id)
);
CREATE TABLE IF NOT EXISTS store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def tags(envelope: dict[str, Any]) -> set[tuple[str, str]]:
    """A hand's (kind, value) tags: its dealer, each player's id and name (in lower case),
    each alert code."""
    out: set[tuple[str, str]] = set()
    if envelope.get("dealer_id"):
        out.add(("dealer", str(envelope["dealer_id"])))
    ohh = envelope.get("ohh") or {}
    for p in ohh.get("players", ()):
        if p.get("player_ref"):
            out.add(("player", str(p["player_ref"])))
        if p.get("name"):
            out.add(("name", str(p["name"]).lower()))
    for a in ohh.get("alerts", ()):
        if a.get("code"):
            out.add(("alert", str(a["code"])))
    return out


def where(q: HandQuery, dialect: Dialect, tagged: bool) -> tuple[str, tuple[object, ...]]:
    """The WHERE clause (empty when nothing is filtered) and its parameters; ``tagged``: the
    store has its tags."""
    mark = "?" if dialect == "sqlite" else "%s"
    parts: list[str] = []
    params: list[object] = []
    for name in ("venue", "table", "since", "until", "dealer", "player", "alert"):
        value = getattr(q, name)
        if value is None:
            continue
        if name in _COLUMNS:
            sql = _COLUMNS[name]
        elif tagged:
            sql = _TAGGED[name]
        elif dialect == "sqlite":
            sql = _JSON_SQLITE[name]
        else:
            raise BadInput("a PostgreSQL hand store is searched by its tags: open it with"
                           " PostgresHandStore, which writes them")  # fmt: skip
        parts.append(sql.format(m=mark))
        if name == "player":
            params.extend([value, value.lower()])
        else:
            params.extend([value] * sql.count("{m}"))
    return ((" WHERE " + " AND ".join(parts)) if parts else ""), tuple(params)


def search_sql(q: HandQuery, dialect: Dialect, tagged: bool) -> tuple[str, str, tuple[object, ...]]:
    """(the page's SELECT of bodies, the COUNT of all matches, the filter's parameters);
    the page's SELECT takes two more parameters: limit and offset."""
    clause, params = where(q, dialect, tagged)
    mark = "?" if dialect == "sqlite" else "%s"
    page = (
        f"SELECT body FROM hands{clause} ORDER BY ended_at DESC, hand_id DESC"
        f" LIMIT {mark} OFFSET {mark}"
    )
    return page, f"SELECT count(*) FROM hands{clause}", params
