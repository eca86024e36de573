"""A search of stored hands (the floor console's hand history), as SQL for both back-ends.

The filters go into the database: the table and the time range are columns of ``hands``
(``ended_at`` has an index); the dealer, the players and the alerts are read from the stored
record (``body``, the envelope as JSON) with the database's own JSON functions (SQLite's
``json_extract``/``json_each``, PostgreSQL's ``jsonb``), so a search returns only the page it
asks for. No column was added: the stores the venue loggers already wrote are searched as
they are.

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
from typing import Literal

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


# what each filter is in each dialect; {m} is the parameter mark
_SQL: dict[Dialect, dict[str, str]] = {
    "sqlite": {
        "venue": "venue = {m}",
        "table": "table_id = {m}",
        "since": "ended_at >= {m}",
        "until": "ended_at < {m}",
        "dealer": "json_extract(body, '$.dealer_id') = {m}",
        "player": "EXISTS (SELECT 1 FROM json_each(body, '$.ohh.players') AS p"
        " WHERE json_extract(p.value, '$.player_ref') = {m}"
        " OR lower(json_extract(p.value, '$.name')) = lower({m}))",
        "alert": "EXISTS (SELECT 1 FROM json_each(body, '$.ohh.alerts') AS a"
        " WHERE json_extract(a.value, '$.code') = {m})",
    },
    "postgres": {
        "venue": "venue = {m}",
        "table": "table_id = {m}",
        "since": "ended_at >= {m}",
        "until": "ended_at < {m}",
        "dealer": "(body::jsonb ->> 'dealer_id') = {m}",
        "player": "EXISTS (SELECT 1 FROM jsonb_array_elements(body::jsonb -> 'ohh' -> 'players')"
        " AS p WHERE p ->> 'player_ref' = {m} OR lower(p ->> 'name') = lower({m}))",
        "alert": "EXISTS (SELECT 1 FROM jsonb_array_elements(body::jsonb -> 'ohh' -> 'alerts')"
        " AS a WHERE a ->> 'code' = {m})",
    },
}


def where(q: HandQuery, dialect: Dialect) -> tuple[str, tuple[object, ...]]:
    """The WHERE clause (empty when nothing is filtered) and its parameters."""
    mark = "?" if dialect == "sqlite" else "%s"
    parts: list[str] = []
    params: list[object] = []
    for name in ("venue", "table", "since", "until", "dealer", "player", "alert"):
        value = getattr(q, name)
        if value is None:
            continue
        sql = _SQL[dialect][name]
        parts.append(sql.format(m=mark))
        params.extend([value] * sql.count("{m}"))
    return ((" WHERE " + " AND ".join(parts)) if parts else ""), tuple(params)


def search_sql(q: HandQuery, dialect: Dialect) -> tuple[str, str, tuple[object, ...]]:
    """(the page's SELECT of bodies, the COUNT of all matches, the filter's parameters);
    the page's SELECT takes two more parameters: limit and offset."""
    clause, params = where(q, dialect)
    mark = "?" if dialect == "sqlite" else "%s"
    page = (
        f"SELECT body FROM hands{clause} ORDER BY ended_at DESC, hand_id DESC"
        f" LIMIT {mark} OFFSET {mark}"
    )
    return page, f"SELECT count(*) FROM hands{clause}", params
