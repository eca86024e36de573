"""``TableStore``: the daemon's small durable state (SQLite, WAL, same file as the outbox
or its own): hand counter, the core's seating (players, names, stacks) and level state
(``seats``, ``levels``: written by the core loop from the core), profile, deck registry, the
request ids of recently accepted venue commands (so a command replayed after a restart is
still refused), and the events of the hand in progress (so a restart mid-hand can rebuild it).

Every write is one transaction; the hand counter and hand events commit with
``synchronous=FULL``. Failures raise StoreFull / StoreLocked / StoreError and change nothing.
The in-progress hand events contain hole cards: they stay on the table's own disk.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controller.link.errors import BadInput
from controller.link.sqlite import Database

#: deck_cards rows of jokers: "joker:1", "joker:2", ... (card texts are unique per deck)
JOKER_PREFIX = "joker:"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    seat      INTEGER PRIMARY KEY,
    player_id TEXT NOT NULL UNIQUE,
    name      TEXT NOT NULL,
    stack     INTEGER NOT NULL CHECK (stack >= 0)
);
CREATE TABLE IF NOT EXISTS deck_cards (
    deck_id TEXT NOT NULL,
    card    TEXT NOT NULL,
    uid     TEXT NOT NULL UNIQUE,
    PRIMARY KEY (deck_id, card)
);
CREATE TABLE IF NOT EXISTS command_ids (
    request_id TEXT PRIMARY KEY,
    seen_at    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hand_events (
    hand_no INTEGER NOT NULL,
    idx     INTEGER NOT NULL,
    event   TEXT NOT NULL,
    PRIMARY KEY (hand_no, idx)
);
"""


def check_text(**fields: str) -> None:
    """BadInput naming the first field that is not encodable text (a lone surrogate): what
    the store cannot hold, checked before a command changes anything."""
    for what, text in fields.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(f"{what} is not valid Unicode text (a lone surrogate)") from None


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    player_id: str
    name: str
    stack: int


class TableStore:
    """Typed durable key-value state of one table."""

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 2.0, max_bytes: int | None = None
    ) -> None:
        self.db = Database(path, busy_timeout=busy_timeout, max_bytes=max_bytes)
        self.db.script(_SCHEMA, "creating the table-store tables")

    def close(self) -> None:
        self.db.close()

    # -- generic JSON values -------------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        rows = self.db.query("SELECT value FROM kv WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def put(self, key: str, value: Any, *, durable: bool = False) -> None:
        text = json.dumps(value, sort_keys=True, allow_nan=False)
        with self.db.transaction(f"writing {key}", durable=durable) as con:
            con.execute(
                "INSERT INTO kv (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, text),
            )

    # -- hand counter --------------------------------------------------------------------
    def hand_counter(self) -> int:
        """The number of the last hand started (0 before the first)."""
        return int(self.get("hand_counter", 0))

    def next_hand_no(self) -> int:
        """Advance the hand counter durably and return the new hand number."""
        with self.db.transaction("advancing the hand counter", durable=True) as con:
            row = con.execute("SELECT value FROM kv WHERE key = 'hand_counter'").fetchone()
            value = (0 if row is None else int(json.loads(row[0]))) + 1
            con.execute(
                "INSERT INTO kv (key, value) VALUES ('hand_counter', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps(value),),
            )
        return value

    # -- profile -------------------------------------------------------------------------
    def profile(self) -> str | None:
        raw = self.get("profile")
        return None if raw is None else str(raw)

    def set_profile(self, profile: str) -> None:
        self.put("profile", profile)

    # -- seating and stacks --------------------------------------------------------------
    def seating(self) -> dict[int, SeatRecord]:
        rows = self.db.query("SELECT seat, player_id, name, stack FROM seats ORDER BY seat")
        return {int(r[0]): SeatRecord(int(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in rows}

    def put_seating(self, seats: Iterable[tuple[int, str, str, int]]) -> None:
        """The whole seating, (seat, player id, name, stack) each, in one transaction: the
        rules core's seats once it accepted an event (``core_loop.save_seating``, the one
        writer). BadInput, with nothing written, for a seat or player twice, a negative
        stack, or a name or player id that is not encodable text (a lone surrogate)."""
        rows = list(seats)
        seen: dict[str, int] = {}
        for seat, player_id, name, stack in rows:
            check_text(player_id=player_id, name=name)
            if stack < 0:
                raise BadInput(f"seat {seat}: negative stack {stack}")
            if player_id in seen:
                raise BadInput(f"player {player_id} in seats {seen[player_id]} and {seat}")
            seen[player_id] = seat
        if len({r[0] for r in rows}) != len(rows):
            raise BadInput(f"a seat twice in {sorted(r[0] for r in rows)}")
        with self.db.transaction("writing the seating") as con:
            con.execute("DELETE FROM seats")
            con.executemany(
                "INSERT INTO seats (seat, player_id, name, stack) VALUES (?, ?, ?, ?)", rows
            )

    # -- deck registry (the durable copy of the daemon's DeckRegistry: read at start-up; the
    # tag -> card look-up is the registry's, firmware_bridge.decks) --------------------------
    def enrol_deck(
        self, deck_id: str, cards: Mapping[str, str], jokers: Sequence[str] = ()
    ) -> None:
        """Register (or replace) a deck: card text -> tag UID, and the tag UIDs of its
        jokers. BadInput if a UID is in use by another deck."""
        rows = dict(cards)
        for i, uid in enumerate(jokers, 1):
            rows[f"{JOKER_PREFIX}{i}"] = uid
        with self.db.transaction(f"enrolling deck {deck_id}") as con:
            con.execute("DELETE FROM deck_cards WHERE deck_id = ?", (deck_id,))
            for card, uid in rows.items():
                clash = con.execute(
                    "SELECT deck_id, card FROM deck_cards WHERE uid = ?", (uid,)
                ).fetchone()
                if clash is not None:
                    raise BadInput(f"tag {uid} already belongs to {clash[1]} of deck {clash[0]}")
                con.execute(
                    "INSERT INTO deck_cards (deck_id, card, uid) VALUES (?, ?, ?)",
                    (deck_id, card, uid),
                )

    def decks(self) -> list[str]:
        return [str(r[0]) for r in self.db.query("SELECT DISTINCT deck_id FROM deck_cards")]

    def deck(self, deck_id: str) -> dict[str, str]:
        """Card text -> tag UID of a deck's cards (its jokers: :meth:`deck_jokers`)."""
        rows = self.db.query("SELECT card, uid FROM deck_cards WHERE deck_id = ?", (deck_id,))
        return {str(c): str(u) for c, u in rows if not str(c).startswith(JOKER_PREFIX)}

    def deck_jokers(self, deck_id: str) -> list[str]:
        """The tag UIDs of a deck's jokers, in enrolment order."""
        rows = self.db.query("SELECT card, uid FROM deck_cards WHERE deck_id = ?", (deck_id,))
        jokers = [(str(c), str(u)) for c, u in rows if str(c).startswith(JOKER_PREFIX)]
        return [u for _, u in sorted(jokers, key=lambda j: int(j[0][len(JOKER_PREFIX) :]))]

    # -- request ids of accepted venue commands ------------------------------------------
    def remember_command(self, request_id: str, seen_at: float, horizon: float) -> bool:
        """Record an accepted command's request id durably, forgetting those seen before
        ``horizon`` (their commands are stale by now) in the same transaction. False (and
        nothing recorded) if the id is already there: a replay."""
        with self.db.transaction("recording a command's request id", durable=True) as con:
            con.execute("DELETE FROM command_ids WHERE seen_at < ?", (horizon,))
            if con.execute(
                "SELECT 1 FROM command_ids WHERE request_id = ?", (request_id,)
            ).fetchone():
                return False
            con.execute(
                "INSERT INTO command_ids (request_id, seen_at) VALUES (?, ?)",
                (request_id, seen_at),
            )
        return True

    def command_seen(self, request_id: str) -> bool:
        rows = self.db.query("SELECT 1 FROM command_ids WHERE request_id = ?", (request_id,))
        return bool(rows)

    def command_ids(self) -> dict[str, float]:
        """Remembered request ids and when each was accepted (Unix time)."""
        rows = self.db.query("SELECT request_id, seen_at FROM command_ids ORDER BY seen_at")
        return {str(r): float(t) for r, t in rows}

    # -- events of the hand in progress --------------------------------------------------
    def append_hand_event(self, hand_no: int, event: Mapping[str, Any]) -> int:
        """Append one event of the running hand durably; returns its index (0, 1, ...)."""
        text = json.dumps(dict(event), sort_keys=True, allow_nan=False)
        with self.db.transaction(f"recording an event of hand {hand_no}", durable=True) as con:
            row = con.execute(
                "SELECT coalesce(max(idx) + 1, 0) FROM hand_events WHERE hand_no = ?", (hand_no,)
            ).fetchone()
            idx = int(row[0])
            con.execute(
                "INSERT INTO hand_events (hand_no, idx, event) VALUES (?, ?, ?)",
                (hand_no, idx, text),
            )
        return idx

    def hand_events(self, hand_no: int) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT event FROM hand_events WHERE hand_no = ? ORDER BY idx", (hand_no,)
        )
        return [json.loads(r[0]) for r in rows]

    def open_hands(self) -> list[int]:
        """Hand numbers that still have recorded events (unfinished at the last stop)."""
        return [int(r[0]) for r in self.db.query("SELECT DISTINCT hand_no FROM hand_events")]

    def clear_hand_events(self, hand_no: int) -> None:
        with self.db.transaction(f"clearing the events of hand {hand_no}") as con:
            con.execute("DELETE FROM hand_events WHERE hand_no = ?", (hand_no,))

    def snapshot(self) -> dict[str, Any]:
        """Everything stored, as plain data (for diagnostics and tests), except the request
        ids of accepted commands (:meth:`command_ids`: any command well-formed enough to be
        answered by the table adds one, accepted or refused)."""
        return {
            "kv": {str(k): json.loads(v) for k, v in self.db.query("SELECT key, value FROM kv")},
            "seats": {s: asdict(r) for s, r in self.seating().items()},
            "decks": {d: self.deck(d) for d in sorted(self.decks())},
            "jokers": {d: j for d in sorted(self.decks()) if (j := self.deck_jokers(d))},
            "hand_events": {h: self.hand_events(h) for h in sorted(self.open_hands())},
        }
