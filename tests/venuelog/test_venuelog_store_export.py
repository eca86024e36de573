"""Venue logger storage (SQLite, PostgreSQL), idempotence, and OHH / PHH export."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.link import BrokerConfig
from controller.venuelog import PostgresHandStore, SqliteHandStore, VenueLogger, open_store
from controller.venuelog.export import export_ohh, export_phh, phh_text
from tests.link import samples
from tests.pg import PgServer, PostgresMissing, postgres_server

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]


def envelope(n: int, table: str = "t1", replayed: bool = False) -> dict[str, Any]:
    return {
        "kind": "hand",
        "hand_id": f"v1-{table}-{n}",
        "venue": "v1",
        "table": table,
        "hand_no": n,
        "record_seq": n,
        "replayed": replayed,
        "ended_at": 1.0 * n,
        "sent_at": 2.0 * n,
        "ohh": samples.ohh(n, table),
    }


def logger_for(store: Any) -> VenueLogger:
    cfg = BrokerConfig(host="127.0.0.1", port=9, tls=False, allow_plaintext=True)
    return VenueLogger(cfg, store)


def check_store(store: Any) -> None:
    log = logger_for(store)
    assert log.handle("v1", "t1", json.dumps(envelope(2)).encode())["status"] == "stored"
    assert log.handle("v1", "t1", json.dumps(envelope(1)).encode())["status"] == "stored"
    again = envelope(1, replayed=True)  # a re-delivery: harmless
    assert log.handle("v1", "t1", json.dumps(again).encode())["status"] == "duplicate"
    other = envelope(1)
    other["ohh"]["pots"][0]["amount"] = 1
    assert log.handle("v1", "t1", json.dumps(other).encode())["status"] == "conflict"
    # A record published under another table's topic, or invalid, is rejected.
    assert log.handle("v1", "t9", json.dumps(envelope(3)).encode())["status"] == "rejected"
    bad = envelope(4)
    bad["ohh"]["spec_version"] = "1.2.2"
    ack = log.handle("v1", "t1", json.dumps(bad).encode())
    assert ack["status"] == "rejected" and "spec_version" in ack["reason"]
    assert log.handle("v1", "t1", b"\x00garbage") is None
    assert store.count() == 2
    assert [h["hand_no"] for h in store.hands()] == [1, 2]  # ordered by record_seq
    assert [h["hand_no"] for h in store.hands(table="t1")] == [1, 2]
    assert list(store.hands(table="t2")) == []


def test_sqlite_store(tmp_path: Path) -> None:
    store = SqliteHandStore(tmp_path / "venue.db")
    check_store(store)
    store.close()
    assert open_store(tmp_path / "venue.db").count() == 2  # durable


def test_defect_2_postgres_store_on_its_own_server(pg_url: str) -> None:
    """The same checks on PostgreSQL: the test's own server (tests/pg.py, Debian's package,
    a free loopback port), never the machine's; it fails, not skips, without the server."""
    store = open_store(pg_url)
    assert isinstance(store, PostgresHandStore)
    check_store(store)
    store.close()
    again = open_store(pg_url)  # durable, and the schema is created only once
    assert again.count() == 2
    again.close()


def test_postgres_server_is_private(pg_server: PgServer) -> None:
    """The fixture's server is its own process on its own port, not the one on 5432."""
    assert pg_server.port != 5432 and pg_server.proc is not None
    with pg_server.connect() as con:
        row = con.execute("SELECT current_setting('data_directory'), inet_server_port()")
        data_dir, port = row.fetchone()
    assert Path(data_dir).parent == pg_server.directory and port == pg_server.port


def test_defect_2_missing_postgres_server_is_an_error_not_a_skip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without Debian's server binaries the fixture raises, naming the package to install."""
    import tests.pg

    monkeypatch.setattr(tests.pg.glob, "glob", lambda pattern: [])
    with (
        pytest.raises(PostgresMissing, match="install Debian's 'postgresql' package"),
        postgres_server(),
    ):
        pass


def test_ohh_export_lines_and_array() -> None:
    hands = [envelope(1), envelope(2)]
    buf = io.StringIO()
    assert export_ohh(hands, buf) == 2
    lines = buf.getvalue().splitlines()
    assert [json.loads(x)["ohh"]["game_number"] for x in lines] == ["v1-t1-1", "v1-t1-2"]
    arr = io.StringIO()
    export_ohh(hands, arr, array=True)
    assert [h["ohh"]["game_number"] for h in json.loads(arr.getvalue())] == ["v1-t1-1", "v1-t1-2"]


def test_phh_export_replays_in_pokerkit() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    text = phh_text(samples.ohh(1))
    fields = tomllib.loads(text)
    assert fields["variant"] == "NT" and fields["players"] == ["Ivey", "Antonius", "Dwan"]
    # The same actions as the PHH dataset's dwan-ivey-2009.phh.
    assert fields["actions"][3:7] == ["p3 cbr 7000", "p1 cbr 23000", "p2 f", "p3 cc"]
    states = list(pokerkit.HandHistory.loads(text))
    state = states[-1]
    assert state is not None and not state.status  # the hand ran to its end
    assert sum(state.stacks) == sum(fields["starting_stacks"])
    assert state.stacks[2] > fields["starting_stacks"][2]  # Dwan won the pot

    buf = io.StringIO()
    assert export_phh([envelope(1), envelope(2)], buf) == 2
    many = tomllib.loads(buf.getvalue())
    assert sorted(many) == ["v1-t1-1", "v1-t1-2"]


def test_cli_export(tmp_path: Path) -> None:
    db = tmp_path / "venue.db"
    store = SqliteHandStore(db)
    for n in (1, 2, 3):
        store.put(envelope(n))
    store.close()
    out = tmp_path / "hands.phhs"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.venuelog",
            "export",
            "--db",
            str(db),
            "--format",
            "phh",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "exported 3 hands" in run.stderr
    assert len(tomllib.loads(out.read_text())) == 3
    run = subprocess.run(
        [sys.executable, "-m", "controller.venuelog", "export", "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=False,
    )
    assert len(run.stdout.splitlines()) == 3
