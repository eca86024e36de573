"""The hand-history search of the venue logger's store (issue 17), on SQLite and on
PostgreSQL (the test's own server, tests/pg.py): each filter, their combination, the pages,
one hand by id, bad queries, and a store written before the search existed.

The records are real: recorded hands of the shared corpus dealt through the rules core, one
dealer error injected in some (tests/floor/records.py). What each filter must find comes from
outside the code under test: the players from the source PHH files (read with tomllib), the
alert from the injection's own code (hwsim.inject.KINDS), the rest from how the records were
made here."""

from __future__ import annotations

import sqlite3
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.link.errors import BadInput
from controller.venuelog import open_store
from controller.venuelog.query import HandQuery
from controller.venuelog.store import (
    HandStore,
    SqliteReadOnlyStore,
    _body,
    _row,
    open_for_export,
)
from hwsim.inject import KINDS
from tests.floor.records import T0, record
from tests.shared import PHH, need

pytestmark = pytest.mark.timeout(120)

# hand no -> (source, table, dealer, injection, player refs)
HANDS: dict[int, tuple[str, str, str | None, str | None, dict[str, str]]] = {
    1: ("pluribus/31/11.phh", "t1", "D1", None, {"Gogo": "P-77"}),
    2: ("pluribus/100/0.phh", "t1", "D2", "exposed", {}),
    3: ("pluribus/84/7.phh", "t2", "D1", "four-card-flop", {}),
    4: ("wsop-2023-43-day5/2.phh", "t2", None, "wrong-first-seat", {}),
    5: ("pluribus/30/7.phh", "t1", "D2", None, {}),
}


def _records() -> list[dict[str, Any]]:
    return [
        record(src, n, table=table, dealer=dealer, inject=inj, refs=refs)
        for n, (src, table, dealer, inj, refs) in HANDS.items()
    ]


def _source_players(n: int) -> list[str]:
    with need(PHH / HANDS[n][0]).open("rb") as f:
        return list(tomllib.load(f)["players"])


@pytest.fixture(params=["sqlite", "postgres", "sqlite-untagged"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HandStore]:
    """The store as the logger writes it (searched by its tags) and, read-only, an SQLite
    store no logger of this version has tagged yet (searched through the records' JSON)."""
    where = str(tmp_path / "venue.db")
    if request.param == "postgres":
        where = request.getfixturevalue("pg_url")
    s = open_store(where)
    for env in _records():
        assert s.put(env) == "stored"
    if request.param == "sqlite-untagged":
        s.close()
        con = sqlite3.connect(where)
        con.executescript("DROP TABLE hand_tags; DROP TABLE store_meta;")
        con.close()
        s = open_for_export(where)
        assert isinstance(s, SqliteReadOnlyStore) and not s.tagged
    yield s
    s.close()


def _nos(store: HandStore, **filters: Any) -> list[int]:
    found, total = store.search(HandQuery(**filters))
    assert total == len(found)  # every match fits in one page here
    return [int(h["hand_no"]) for h in found]


def test_each_filter_on_both_stores(store: HandStore) -> None:
    assert _nos(store) == [5, 4, 3, 2, 1]  # newest first
    assert _nos(store, table="t1") == [5, 2, 1]
    assert _nos(store, venue="v1", table="t2") == [4, 3]
    assert _nos(store, venue="v9") == []
    # the time range: since <= ended_at < until (hand n ended at T0 + 60 n)
    assert _nos(store, since=T0 + 120, until=T0 + 240) == [3, 2]
    assert _nos(store, since=T0 + 121) == [5, 4, 3]
    assert _nos(store, until=T0 + 60) == []
    assert _nos(store, dealer="D1") == [3, 1]
    assert _nos(store, dealer="D2", table="t1") == [5, 2]
    assert _nos(store, dealer="d1") == []  # a badge id is matched exactly


def test_player_filter_matches_the_source_players(store: HandStore) -> None:
    for name in ("Gogo", "MrWhite", "Brian Rast", "Pluribus"):
        want = sorted((n for n in HANDS if name in _source_players(n)), reverse=True)
        assert want, name
        assert _nos(store, player=name) == want, name
        assert _nos(store, player=name.upper()) == want, f"{name} in capitals"
    assert _nos(store, player="P-77") == [1]  # the venue player id, given in hand 1 only
    assert _nos(store, player="p-77") == []  # an id is matched exactly
    assert _nos(store, player="Nobody") == []
    assert _nos(store, player="Gogo", table="t1", dealer="D2") == [5]


def test_alert_filter_finds_the_injected_dealer_error(store: HandStore) -> None:
    for n, (_, _, _, inj, _) in HANDS.items():
        if inj is None:
            continue
        code = KINDS[inj][0].value.upper()  # the code the injection must raise
        assert n in _nos(store, alert=code), (n, code)
    assert _nos(store, alert="EXPOSED_CARD") == [2]
    assert _nos(store, alert="FOUR_CARD_FLOP") == [3]
    # the misdealt deal's alert is in the re-deal's record (the same hand, G1)
    assert _nos(store, alert="WRONG_FIRST_SEAT") == [4]
    assert _nos(store, alert="WRONG_FIRST_SEAT", table="t1") == []
    assert _nos(store, alert="MISSING_BURN") == []


def test_pages_and_one_hand(store: HandStore) -> None:
    seen: list[int] = []
    for offset in (0, 2, 4):
        page, total = store.search(HandQuery(limit=2, offset=offset))
        assert total == 5
        seen += [int(h["hand_no"]) for h in page]
    assert seen == [5, 4, 3, 2, 1]
    assert store.search(HandQuery(limit=2, offset=6)) == ([], 5)
    page, total = store.search(HandQuery(table="t1", limit=1, offset=1))
    assert ([h["hand_no"] for h in page], total) == ([2], 3)
    hand = store.get("v1-t2-3")
    assert hand is not None
    assert hand["dealer_id"] == "D1" and hand["table"] == "t2" and hand["hand_no"] == 3
    assert hand == {k: v for k, v in _records()[2].items() if k not in ("replayed", "sent_at")}
    assert store.get("v1-t2-99") is None


def test_bad_queries_name_what_is_wrong() -> None:
    with pytest.raises(BadInput, match="limit 0"):
        HandQuery(limit=0)
    with pytest.raises(BadInput, match="limit 501"):
        HandQuery(limit=501)
    with pytest.raises(BadInput, match="offset -1"):
        HandQuery(offset=-1)
    with pytest.raises(BadInput, match="ends before it starts"):
        HandQuery(since=10.0, until=10.0)
    with pytest.raises(BadInput, match="alert code"):
        HandQuery(alert="exposed card; DROP TABLE hands")


OLD_SCHEMA = """
CREATE TABLE hands (hand_id TEXT PRIMARY KEY, venue TEXT NOT NULL, table_id TEXT NOT NULL,
    hand_no INTEGER NOT NULL, record_seq INTEGER NOT NULL, ended_at DOUBLE PRECISION NOT NULL,
    received_at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL);
CREATE INDEX hands_order ON hands (venue, table_id, record_seq);
"""


def test_a_store_written_before_the_search_is_searched_as_it_is(tmp_path: Path) -> None:
    """A database of an older logger (no ended_at index, no tags, records without alerts):
    the console's read-only store searches it unchanged (through the JSON); the logger's next
    start adds the index and tags the stored hands once, keeping every row."""
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(OLD_SCHEMA)
    old = record("pluribus/31/11.phh", 1, dealer="D1")
    del old["ohh"]["alerts"]  # a table of an older version
    new = record("pluribus/100/0.phh", 2, dealer="D1", inject="exposed")
    for env in (old, new):
        con.execute("INSERT INTO hands VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _row(env, _body(env)))
    con.commit()
    con.close()
    ro = open_for_export(db)
    assert isinstance(ro, SqliteReadOnlyStore) and not ro.tagged
    assert _nos(ro, dealer="D1") == [2, 1]
    assert _nos(ro, alert="EXPOSED_CARD") == [2]
    ro.close()
    indexes = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert "hands_ended" not in indexes  # read-only: nothing was written
    rw = open_store(db)
    assert rw.count() == 2 and _nos(rw, player="gogo") == [1]
    assert _nos(rw, alert="EXPOSED_CARD") == [2] and _nos(rw, dealer="D1") == [2, 1]
    rw.close()
    indexes = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert {"hands_ended", "hand_tags", "store_meta"} <= indexes
    ro = open_for_export(db)
    assert isinstance(ro, SqliteReadOnlyStore) and ro.tagged  # now searched by the tags
    assert _nos(ro, player="GOGO") == [1] and _nos(ro, alert="EXPOSED_CARD") == [2]
    ro.close()
    again = open_store(db)  # tagged once: a second open writes nothing
    assert again.count() == 2
    again.close()
    tag_rows = sqlite3.connect(db).execute("SELECT count(*) FROM hand_tags").fetchone()[0]
    assert tag_rows == 1 + 6 + 1 + 6 + 1  # D1 and six names per hand, hand 2's exposed card


def test_a_postgres_store_written_before_the_search_is_tagged_once(pg_url: str) -> None:
    import psycopg

    old = record("pluribus/31/11.phh", 1, dealer="D1")
    del old["ohh"]["alerts"]
    new = record("pluribus/100/0.phh", 2, dealer="D2", inject="exposed")
    with psycopg.connect(pg_url, autocommit=True) as con:
        for stmt in OLD_SCHEMA.split(";"):
            if stmt.strip():
                con.execute(stmt)
        for env in (old, new):
            con.execute("INSERT INTO hands VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                        _row(env, _body(env)))  # fmt: skip
    store = open_store(pg_url)
    assert _nos(store, dealer="D2") == [2] and _nos(store, alert="EXPOSED_CARD") == [2]
    assert _nos(store, player="gogo") == [1]
    assert store.put(record("pluribus/84/7.phh", 3, dealer="D1")) == "stored"
    assert _nos(store, dealer="D1") == [3, 1]
    store.close()
    again = open_store(pg_url)  # tagged once: the second open finds the tags done
    assert _nos(again, player="Budd") == [3, 1]
    again.close()
    with psycopg.connect(pg_url) as con:
        n = con.execute("SELECT count(*) FROM hand_tags WHERE kind = 'dealer'").fetchone()
    assert n is not None and n[0] == 3
