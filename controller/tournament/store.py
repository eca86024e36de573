"""The event's journal: an SQLite file (WAL, ``synchronous=FULL``) of every journal event
applied, in order, written before the service acts on it; a restart replays it through the
core (:func:`controller.tournament.state.apply`). The file also keeps the event file's text it
was started with: a restart with a different event file is refused, naming the file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.tournament.codec import decode, encode
from controller.tournament.errors import TournamentError
from controller.tournament.event import Event, load_event_text
from controller.tournament.state import JournalEvent, TournamentState, apply


class StoreMismatch(TournamentError):
    """The journal belongs to another event file."""


class Journal:
    def __init__(self, path: str | Path) -> None:
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY,"
                        " kind TEXT NOT NULL, body TEXT NOT NULL)")  # fmt: skip

    def open_event(self, text: str, source: str) -> TournamentState:
        """The state of the event in ``text``: the journal replayed, or a new one."""
        event: Event = load_event_text(text)
        row = self.db.execute("SELECT value FROM meta WHERE key='event'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('event', ?)", (text,))
        elif row[0] != text:
            raise StoreMismatch(f"{source}: this journal was started with another event file"
                                " (give the event's journal or a new --state file)")  # fmt: skip
        state = TournamentState(event)
        for kind, body in self.db.execute("SELECT kind, body FROM journal ORDER BY seq"):
            state = apply(state, decode(kind, body))
        return state

    def append(self, ev: JournalEvent) -> None:
        kind, body = encode(ev)
        self.db.execute("INSERT INTO journal (kind, body) VALUES (?, ?)", (kind, body))

    def close(self) -> None:
        self.db.close()
