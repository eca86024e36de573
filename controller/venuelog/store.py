"""Where the venue logger keeps hand records: SQLite (default) or PostgreSQL (psycopg 3).

Storing is idempotent on ``hand_id``: the same record again is a ``duplicate``; a different
record under a stored ``hand_id`` is a ``conflict`` (the first one is kept). Both are
acknowledged so the table stops re-sending.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import quote, urlsplit, urlunsplit

from controller.link.errors import StoreError
from controller.link.sqlite import Database
from controller.venuelog.query import TAGS_SCHEMA, HandQuery, search_sql, tags

PutResult = Literal["stored", "duplicate", "conflict"]

_COLUMNS = "hand_id, venue, table_id, hand_no, record_seq, ended_at, received_at, body"
_SQLITE_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS hands (
    hand_id     TEXT PRIMARY KEY,
    venue       TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    hand_no     INTEGER NOT NULL,
    record_seq  INTEGER NOT NULL,
    ended_at    DOUBLE PRECISION NOT NULL,
    received_at DOUBLE PRECISION NOT NULL,
    body        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hands_order ON hands (venue, table_id, record_seq);
CREATE INDEX IF NOT EXISTS hands_ended ON hands (ended_at);
"""
    + TAGS_SCHEMA
)
_TAGS_DONE = "SELECT value FROM store_meta WHERE key = 'tags'"
_PG_TAG = "INSERT INTO hand_tags (hand_id, kind, value) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"


def _body(envelope: dict[str, Any]) -> str:
    """What identifies a record's content: the envelope without its delivery fields."""
    core = {k: v for k, v in envelope.items() if k not in ("replayed", "sent_at")}
    return json.dumps(core, sort_keys=True, separators=(",", ":"))


class HandStore(Protocol):
    def put(self, envelope: dict[str, Any]) -> PutResult: ...
    def hands(
        self, venue: str | None = None, table: str | None = None
    ) -> Iterator[dict[str, Any]]: ...
    def count(self) -> int: ...
    def search(self, q: HandQuery) -> tuple[list[dict[str, Any]], int]:
        """The page of stored envelopes ``q`` asks for (newest first) and how many match."""
        ...

    def get(self, hand_id: str) -> dict[str, Any] | None: ...
    def close(self) -> None: ...


class SqliteHandStore:
    def __init__(self, path: str | Path, *, busy_timeout: float = 2.0) -> None:
        self.db = Database(path, busy_timeout=busy_timeout)
        self.db.script(_SQLITE_SCHEMA, "creating the hands table")
        if not self.db.query(_TAGS_DONE):
            with self.db.transaction("tagging the stored hands (once)", durable=True) as con:
                for hand_id, body in con.execute("SELECT hand_id, body FROM hands").fetchall():
                    con.executemany(
                        "INSERT OR IGNORE INTO hand_tags (hand_id, kind, value) VALUES (?, ?, ?)",
                        [(hand_id, k, v) for k, v in tags(json.loads(body))],
                    )
                con.execute("INSERT OR IGNORE INTO store_meta (key, value) VALUES ('tags', '1')")

    def put(self, envelope: dict[str, Any]) -> PutResult:
        body = _body(envelope)
        with self.db.transaction(f"storing {envelope['hand_id']}", durable=True) as con:
            row = con.execute(
                "SELECT body FROM hands WHERE hand_id = ?", (envelope["hand_id"],)
            ).fetchone()
            if row is not None:
                return "duplicate" if row[0] == body else "conflict"
            con.execute(
                f"INSERT INTO hands ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                _row(envelope, body),
            )
            con.executemany(
                "INSERT OR IGNORE INTO hand_tags (hand_id, kind, value) VALUES (?, ?, ?)",
                [(envelope["hand_id"], k, v) for k, v in tags(envelope)],
            )
        return "stored"

    def hands(self, venue: str | None = None, table: str | None = None) -> Iterator[dict[str, Any]]:
        sql, params = _select(venue, table, "?")
        for (body,) in self.db.query(sql, params):
            yield json.loads(body)

    def count(self) -> int:
        return int(self.db.query("SELECT count(*) FROM hands")[0][0])

    def search(self, q: HandQuery) -> tuple[list[dict[str, Any]], int]:
        page, count, params = search_sql(q, "sqlite", tagged=True)
        rows = self.db.query(page, (*params, q.limit, q.offset))
        total = int(self.db.query(count, params)[0][0])
        return [json.loads(body) for (body,) in rows], total

    def get(self, hand_id: str) -> dict[str, Any] | None:
        rows = self.db.query("SELECT body FROM hands WHERE hand_id = ?", (hand_id,))
        return json.loads(rows[0][0]) if rows else None

    def close(self) -> None:
        self.db.close()


def _row(envelope: dict[str, Any], body: str) -> tuple[object, ...]:
    return (
        envelope["hand_id"],
        envelope["venue"],
        envelope["table"],
        envelope["hand_no"],
        envelope["record_seq"],
        envelope["ended_at"],
        time.time(),
        body,
    )


def _select(venue: str | None, table: str | None, mark: str) -> tuple[str, tuple[object, ...]]:
    where, params = [], []
    if venue is not None:
        where.append(f"venue = {mark}")
        params.append(venue)
    if table is not None:
        where.append(f"table_id = {mark}")
        params.append(table)
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    sql = f"SELECT body FROM hands{clause} ORDER BY venue, table_id, record_seq"
    return sql, tuple(params)


_SCHEMA_LOCK = 0x7261696C  # "rail": the advisory lock around creating the schema


def public_url(url: str) -> str:
    """A PostgreSQL URL without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = (f"{parts.username}@" if parts.username else "") + (parts.hostname or "")
    netloc += f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


class PostgresHandStore:
    """The same table in PostgreSQL (``postgresql://...`` URL), via psycopg 3."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - extra not installed
            raise StoreError("PostgreSQL needs the 'postgres' extra (psycopg)") from exc
        self._psycopg = psycopg
        self._url = url
        self.con = self._connect()

    def _connect(self) -> Any:
        psycopg = self._psycopg
        try:
            con = psycopg.connect(self._url, autocommit=False)
            with con.transaction():
                # Two loggers starting together on a new database: PostgreSQL lets two
                # "CREATE TABLE IF NOT EXISTS" race (one fails: type "hands" already
                # exists). The lock, held to the commit, makes the second wait and find it.
                con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for stmt in _SQLITE_SCHEMA.split(";"):
                    if stmt.strip():
                        con.execute(stmt)
                if con.execute(_TAGS_DONE).fetchone() is None:  # once: the stored hands
                    rows = con.execute("SELECT hand_id, body FROM hands").fetchall()
                    with con.cursor() as cur:
                        cur.executemany(
                            _PG_TAG, [(h, k, v) for h, b in rows for k, v in tags(json.loads(b))]
                        )
                    con.execute(
                        "INSERT INTO store_meta (key, value) VALUES ('tags', '1')"
                        " ON CONFLICT (key) DO NOTHING"
                    )
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL {public_url(self._url)}: {exc}") from None
        return con

    def put(self, envelope: dict[str, Any]) -> PutResult:
        try:
            return self._put(envelope)
        except StoreError:
            if not (self.con.closed or self.con.broken):
                raise
        # The server went away (a restart, a failover): connect again and retry once; if
        # that fails too, the record stays unacknowledged and the table re-sends it.
        self.con.close()
        self.con = self._connect()
        return self._put(envelope)

    def _put(self, envelope: dict[str, Any]) -> PutResult:
        body = _body(envelope)
        try:
            with self.con.transaction():
                cur = self.con.execute(
                    f"INSERT INTO hands ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (hand_id) DO NOTHING",
                    _row(envelope, body),
                )
                if cur.rowcount == 1:
                    with self.con.cursor() as tag_cur:
                        tag_cur.executemany(
                            _PG_TAG, [(envelope["hand_id"], k, v) for k, v in tags(envelope)]
                        )
                    return "stored"
                row = self.con.execute(
                    "SELECT body FROM hands WHERE hand_id = %s", (envelope["hand_id"],)
                ).fetchone()
        except self._psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: storing {envelope['hand_id']}: {exc}") from exc
        return "duplicate" if row is not None and row[0] == body else "conflict"

    def hands(self, venue: str | None = None, table: str | None = None) -> Iterator[dict[str, Any]]:
        sql, params = _select(venue, table, "%s")
        with self.con.transaction():
            rows = self.con.execute(sql, params).fetchall()
        for (body,) in rows:
            yield json.loads(body)

    def count(self) -> int:
        with self.con.transaction():
            row = self.con.execute("SELECT count(*) FROM hands").fetchone()
        return int(row[0]) if row else 0

    def search(self, q: HandQuery) -> tuple[list[dict[str, Any]], int]:
        page, count, params = search_sql(q, "postgres", tagged=True)
        try:
            with self.con.transaction():
                rows = self.con.execute(page, (*params, q.limit, q.offset)).fetchall()
                total = self.con.execute(count, params).fetchone()
        except self._psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: searching the hands: {exc}") from exc
        return [json.loads(body) for (body,) in rows], int(total[0]) if total else 0

    def get(self, hand_id: str) -> dict[str, Any] | None:
        try:
            with self.con.transaction():
                row = self.con.execute(
                    "SELECT body FROM hands WHERE hand_id = %s", (hand_id,)
                ).fetchone()
        except self._psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: reading {hand_id}: {exc}") from exc
        return json.loads(row[0]) if row else None

    def close(self) -> None:
        self.con.close()


class SqliteReadOnlyStore:
    """An existing SQLite venue-log database opened read-only (``mode=ro``), for export:
    a mistyped path is an error naming it, never a new empty database."""

    def __init__(self, path: str | Path) -> None:
        p = Path(path)
        if not p.is_file():
            what = "a folder, not a database file" if p.is_dir() else "no such database"
            raise StoreError(f"--db {path}: {what}; export reads the database a"
                             " 'venue-log run --db' wrote (check the path)")  # fmt: skip
        uri = "file:" + quote(str(p.resolve())) + "?mode=ro"
        try:
            self.con = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
            self.con.execute("SELECT count(*) FROM hands").fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"--db {path}: not a venue-log database ({exc})") from None
        try:  # tagged by a logger of this version; else searched through the JSON
            self.tagged = self.con.execute(_TAGS_DONE).fetchone() is not None
        except sqlite3.Error:
            self.tagged = False  # an older store: no store_meta table

    def put(self, envelope: dict[str, Any]) -> PutResult:
        raise StoreError("the database is open read-only (export)")

    def hands(self, venue: str | None = None, table: str | None = None) -> Iterator[dict[str, Any]]:
        sql, params = _select(venue, table, "?")
        try:
            rows = self.con.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"reading the hands: {exc}") from None
        for (body,) in rows:
            yield json.loads(body)

    def count(self) -> int:
        return int(self.con.execute("SELECT count(*) FROM hands").fetchone()[0])

    def search(self, q: HandQuery) -> tuple[list[dict[str, Any]], int]:
        page, count, params = search_sql(q, "sqlite", self.tagged)
        try:
            rows = self.con.execute(page, (*params, q.limit, q.offset)).fetchall()
            total = int(self.con.execute(count, params).fetchone()[0])
        except sqlite3.Error as exc:
            raise StoreError(f"searching the hands: {exc}") from None
        return [json.loads(body) for (body,) in rows], total

    def get(self, hand_id: str) -> dict[str, Any] | None:
        try:
            row = self.con.execute(
                "SELECT body FROM hands WHERE hand_id = ?", (hand_id,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"reading {hand_id}: {exc}") from None
        return json.loads(row[0]) if row else None

    def close(self) -> None:
        self.con.close()


def open_for_export(where: str | Path) -> HandStore:
    """The store at ``where`` to read from: PostgreSQL for a URL, else an existing SQLite
    file opened read-only (StoreError naming the path when there is none)."""
    text = str(where)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresHandStore(text)
    return SqliteReadOnlyStore(text)


def open_store(where: str | Path) -> HandStore:
    """A PostgreSQL store for ``postgresql://`` / ``postgres://`` URLs, else SQLite."""
    text = str(where)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresHandStore(text)
    try:
        return SqliteHandStore(text)
    except sqlite3.Error as exc:  # pragma: no cover - translated inside Database
        raise StoreError(str(exc)) from exc
