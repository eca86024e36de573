"""The durable outbox of completed hand records (SQLite, WAL).

A record is inserted with ``synchronous=FULL`` (it survives a power cut once :meth:`add`
returned), stays until the venue logger acknowledges it, and is sent in ``record_seq`` order.
``record_seq`` is an AUTOINCREMENT key, never reused, and ``hand_id`` is unique, so a
re-delivery is recognisable and harmless. Acknowledged records are kept (for the venue's
``replay`` command) until :meth:`prune` drops the oldest.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.link.errors import BadInput
from controller.link.sqlite import Database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    record_seq INTEGER PRIMARY KEY AUTOINCREMENT,
    hand_id    TEXT NOT NULL UNIQUE,
    hand_no    INTEGER NOT NULL,
    ended_at   REAL NOT NULL,
    ohh        TEXT NOT NULL,
    sent_count INTEGER NOT NULL DEFAULT 0,
    acked_at   REAL,
    ack_status TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (acked_at, record_seq);
CREATE TABLE IF NOT EXISTS link_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
_DEALER_COLUMN = "ALTER TABLE outbox ADD COLUMN dealer_id TEXT;"


@dataclass(frozen=True, slots=True)
class OutboxRecord:
    record_seq: int
    hand_id: str
    hand_no: int
    ended_at: float
    ohh: dict[str, Any]
    sent_count: int
    acked: bool
    dealer_id: str | None = None


def _canonical(ohh: dict[str, Any]) -> str:
    return json.dumps(ohh, sort_keys=True, separators=(",", ":"), allow_nan=False)


class Outbox:
    """Hand records waiting for the venue logger's acknowledgement."""

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 2.0, max_bytes: int | None = None
    ) -> None:
        self.db = Database(path, busy_timeout=busy_timeout, max_bytes=max_bytes)
        self.db.script(_SCHEMA, "creating the outbox tables")
        cols = {str(r[1]) for r in self.db.query("PRAGMA table_info(outbox)")}
        if "dealer_id" not in cols:  # an outbox of an older version
            self.db.script(_DEALER_COLUMN, "adding the dealer_id column")

    def set_size_cap(self, max_bytes: int | None) -> None:
        self.db.set_size_cap(max_bytes)

    def add(
        self,
        hand_id: str,
        hand_no: int,
        ohh: dict[str, Any],
        ended_at: float | None = None,
        *,
        dealer_id: str | None = None,
    ) -> OutboxRecord:
        """Store a completed hand durably; idempotent for the same ``hand_id`` and content.
        ``dealer_id``: the dealer's badge id (sent in the envelope; OHH has no field for it).

        Raises BadInput if ``hand_id`` is already stored with different content, and
        StoreFull / StoreLocked / StoreError if the commit failed (nothing was stored).
        """
        body = _canonical(ohh)
        when = time.time() if ended_at is None else ended_at
        with self.db.transaction(f"storing hand {hand_id}", durable=True) as con:
            row = con.execute(
                "SELECT record_seq, ohh FROM outbox WHERE hand_id = ?", (hand_id,)
            ).fetchone()
            if row is not None:
                if row[1] != body:
                    raise BadInput(f"hand {hand_id}: already stored with different content")
                seq = int(row[0])
            else:
                cur = con.execute(
                    "INSERT INTO outbox (hand_id, hand_no, ended_at, ohh, dealer_id)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (hand_id, hand_no, when, body, dealer_id),
                )
                seq = int(cur.lastrowid or 0)
        rec = self.get(seq)
        assert rec is not None
        return rec

    def get(self, record_seq: int) -> OutboxRecord | None:
        rows = self.db.query(
            "SELECT record_seq, hand_id, hand_no, ended_at, ohh, sent_count, acked_at, dealer_id"
            " FROM outbox WHERE record_seq = ?",
            (record_seq,),
        )
        return _record(rows[0]) if rows else None

    def pending(self, limit: int = 100, after: int = 0) -> list[OutboxRecord]:
        """Unacknowledged records with ``record_seq > after``, oldest first."""
        rows = self.db.query(
            "SELECT record_seq, hand_id, hand_no, ended_at, ohh, sent_count, acked_at, dealer_id"
            " FROM outbox WHERE acked_at IS NULL AND record_seq > ?"
            " ORDER BY record_seq LIMIT ?",
            (after, limit),
        )
        return [_record(r) for r in rows]

    def pending_count(self) -> int:
        rows = self.db.query("SELECT count(*) FROM outbox WHERE acked_at IS NULL")
        return int(rows[0][0])

    def mark_sent(self, record_seq: int) -> None:
        with self.db.transaction("marking a record sent") as con:
            con.execute(
                "UPDATE outbox SET sent_count = sent_count + 1 WHERE record_seq = ?",
                (record_seq,),
            )

    def ack(self, hand_id: str, status: str) -> bool:
        """Mark a record acknowledged; False if unknown or already acknowledged."""
        with self.db.transaction("acknowledging a record") as con:
            cur = con.execute(
                "UPDATE outbox SET acked_at = ?, ack_status = ?"
                " WHERE hand_id = ? AND acked_at IS NULL",
                (time.time(), status, hand_id),
            )
            return cur.rowcount > 0

    def ack_status(self, hand_id: str) -> str | None:
        rows = self.db.query("SELECT ack_status FROM outbox WHERE hand_id = ?", (hand_id,))
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    def requeue_from(self, hand_no: int) -> int:
        """Queue every held record with ``hand_no >= hand_no`` again; returns how many."""
        with self.db.transaction("re-queueing records") as con:
            cur = con.execute(
                "UPDATE outbox SET acked_at = NULL, ack_status = NULL"
                " WHERE hand_no >= ? AND acked_at IS NOT NULL",
                (hand_no,),
            )
            return cur.rowcount

    def held_hand_range(self) -> tuple[int, int] | None:
        rows = self.db.query("SELECT min(hand_no), max(hand_no) FROM outbox")
        lo, hi = rows[0]
        if lo is None or hi is None:
            return None
        return int(lo), int(hi)

    def prune(self, keep: int = 10_000) -> int:
        """Drop acknowledged records beyond the newest ``keep``; returns how many."""
        with self.db.transaction("pruning the outbox") as con:
            cur = con.execute(
                "DELETE FROM outbox WHERE acked_at IS NOT NULL AND record_seq <="
                " (SELECT coalesce(max(record_seq), 0) FROM outbox) - ?",
                (keep,),
            )
            return cur.rowcount

    def next_bdseq(self) -> int:
        """Advance and return the persistent birth/death sequence number (0, 1, 2 ...)."""
        with self.db.transaction("advancing bdseq") as con:
            row = con.execute("SELECT value FROM link_meta WHERE key = 'bdseq'").fetchone()
            value = 0 if row is None else int(row[0]) + 1
            con.execute(
                "INSERT INTO link_meta (key, value) VALUES ('bdseq', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (value,),
            )
        return value

    def close(self) -> None:
        self.db.close()


def _record(row: Any) -> OutboxRecord:
    seq, hand_id, hand_no, ended_at, ohh, sent, acked_at, dealer = row
    return OutboxRecord(
        record_seq=int(seq),
        hand_id=str(hand_id),
        hand_no=int(hand_no),
        ended_at=float(ended_at),
        ohh=json.loads(str(ohh)),
        sent_count=int(sent),
        acked=acked_at is not None,
        dealer_id=None if dealer is None else str(dealer),
    )
