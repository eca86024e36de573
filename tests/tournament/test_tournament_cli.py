"""``railguard tournament``: the event file checked with errors that name what is wrong, a
journal refused for another event file, and the event commands' checks (schema, HMAC,
freshness, replay) before anything runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.link.commands import sign
from controller.link.config import BrokerConfig
from controller.tournament.link import EventLink
from tests.tournament.events import event_text


def test_check_prints_the_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ev.toml"
    f.write_text(event_text(profile="club-003", stack=None, entrants=4))
    assert main(["tournament", "check", "--event", str(f)]) == 0
    out = capsys.readouterr().out
    assert "starting stack 4500 (+500 bonus)" in out and "final table 9" in out
    assert "Break (colour up 25s)" in out


def test_a_bad_event_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ev.toml"
    f.write_text(event_text().replace("seats = 9", "seats = 12", 1))
    assert main(["tournament", "check", "--event", str(f)]) == 2
    assert "tables[1].seats: 2-10, not 12" in capsys.readouterr().err
    assert main(["tournament", "check", "--event", str(tmp_path / "nope.toml")]) == 2


def test_run_refuses_a_journal_of_another_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.tournament.store import Journal

    j = Journal(tmp_path / "ev.db")
    j.open_event(event_text(entrants=3), "a.toml")
    j.close()
    f = tmp_path / "ev.toml"
    f.write_text(event_text(entrants=4))
    argv = [
        "tournament",
        "run",
        "--event",
        str(f),
        "--broker",
        "mqtt://127.0.0.1:9",
        "--allow-plaintext",
    ]
    assert main(argv) == 2
    assert "this journal was started with another event file" in capsys.readouterr().err


def _cmd(**kw: object) -> dict[str, object]:
    body: dict[str, object] = {
        "request_id": "r1",
        "ts": time.time(),
        "command": "confirm",
        "args": {"proposal": 1},
    }
    body.update(kw)
    return body


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "malformed: not JSON"),
        (json.dumps(_cmd(command="explode")).encode(), "malformed"),
        (json.dumps(_cmd(args={"proposal": "1"})).encode(), "malformed"),
        (json.dumps(_cmd(args={"op": "start"}, command="clock", extra=1)).encode(), "malformed"),
        (json.dumps(_cmd(ts=time.time() - 300)).encode(), "stale"),
        (json.dumps(_cmd()).encode(), "unauthorised"),  # the service has a key: unsigned
        (json.dumps(sign(_cmd(), b"other-key")).encode(), "unauthorised"),
    ],
    ids=[
        "not-json",
        "unknown-command",
        "string-proposal",
        "extra-key",
        "stale",
        "unsigned",
        "wrong-key",
    ],
)
def test_event_commands_are_checked(body: bytes, reason: str) -> None:
    link = EventLink(
        BrokerConfig(host="x", tls=False, allow_plaintext=True),
        command_key=b"key" if reason in ("unauthorised",) else None,
    )
    with pytest.raises(ValueError, match=reason):
        link._admit(body)


def test_a_signed_command_is_admitted_once() -> None:
    link = EventLink(BrokerConfig(host="x", tls=False, allow_plaintext=True), command_key=b"k")
    raw = json.dumps(sign(_cmd(), b"k")).encode()
    assert link._admit(raw)["command"] == "confirm"
    with pytest.raises(ValueError, match="replayed"):
        link._admit(raw)
