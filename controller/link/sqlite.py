"""SQLite plumbing shared by the outbox and the table store: WAL, busy timeout, size cap,
explicit transactions, and translation of SQLite failures into typed errors."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from controller.link.errors import StoreError, StoreFull, StoreLocked

_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_FULL = 13


def translate(exc: sqlite3.Error, what: str, path: str) -> StoreError:
    """A typed error for ``exc`` that says what failed and that nothing was committed."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = f"{what} on {path}: {exc}; nothing was committed"
    if primary == _SQLITE_FULL or "full" in str(exc).lower():
        return StoreFull(text)
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in str(exc).lower():
        return StoreLocked(text)
    return StoreError(text)


class Database:
    """One connection in autocommit mode; :meth:`transaction` wraps BEGIN IMMEDIATE/COMMIT."""

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 2.0, max_bytes: int | None = None
    ) -> None:
        self.path = str(path)
        try:
            self.con = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self.con.execute("PRAGMA journal_mode=WAL")
            self.con.execute("PRAGMA synchronous=NORMAL")
            self.con.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise translate(exc, "opening the database", self.path) from exc
        self.set_size_cap(max_bytes)

    def set_size_cap(self, max_bytes: int | None) -> None:
        """Cap the database file at about ``max_bytes`` (None: only the disk limits it)."""
        page = int(self.con.execute("PRAGMA page_size").fetchone()[0])
        pages = 1073741823 if max_bytes is None else max(1, max_bytes // page)
        self.con.execute(f"PRAGMA max_page_count={int(pages)}")

    @contextmanager
    def transaction(self, what: str, *, durable: bool = False) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; ``durable`` commits with synchronous=FULL.

        Any SQLite failure rolls back and raises StoreFull / StoreLocked / StoreError.
        """
        con = self.con
        try:
            if durable:
                con.execute("PRAGMA synchronous=FULL")
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise translate(exc, what, self.path) from exc
        finally:
            if durable:
                with suppress(sqlite3.Error):
                    con.execute("PRAGMA synchronous=NORMAL")

    def query(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        try:
            return list(self.con.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            raise translate(exc, "reading", self.path) from exc

    def script(self, sql: str, what: str) -> None:
        """Run idempotent DDL (CREATE ... IF NOT EXISTS) outside any transaction."""
        try:
            self.con.executescript(sql)
        except sqlite3.Error as exc:
            raise translate(exc, what, self.path) from exc

    def close(self) -> None:
        self.con.close()
