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


def test_run_serves_the_event_and_resumes_after_a_restart(tmp_path: Path) -> None:
    """``railguard tournament run`` as the technician starts it, on a private mosquitto: the
    clock retained on its topic, a command answered, Ctrl-C (exit 0), and a restart that
    goes on from the journal (the clock still started)."""
    import asyncio
    import signal
    import subprocess
    import sys

    import aiomqtt

    from tests.brokers import plain_broker

    f = tmp_path / "ev.toml"
    f.write_text(event_text(entrants=3))

    async def talk(
        port: int, command: str | None, since: float
    ) -> tuple[dict[str, object], object]:
        async with aiomqtt.Client("127.0.0.1", port, identifier=f"t-{command}") as c:
            await c.subscribe("railguard/_event/ev1/#", qos=1)
            answer: object = None
            clock: dict[str, object] = {}
            sent = False
            async with asyncio.timeout(30):
                async for m in c.messages:
                    b = json.loads(m.payload if isinstance(m.payload, bytes) else b"{}")
                    if m.topic.value.endswith("/cmd/response"):
                        answer = b
                    elif m.topic.value.endswith("/clock") and float(b["ts"]) > since:
                        clock = b  # published by this run's service (not the last one's)
                    if clock and command is None:
                        return clock, None
                    if clock and not sent:  # the service is up (its retained clock): ask
                        body = {
                            "request_id": f"r-{command}",
                            "ts": time.time(),
                            "command": "clock",
                            "args": {"op": command},
                        }
                        await c.publish("railguard/_event/ev1/cmd", json.dumps(body), qos=1)
                        sent = True
                    if answer is not None and clock.get("started"):
                        return clock, answer
        raise AssertionError("unreachable")

    def run(port: int, command: str | None) -> tuple[dict[str, object], object, int]:
        since = time.time()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.cli",
                "tournament",
                "run",
                "--event",
                str(f),
                "--broker",
                f"mqtt://127.0.0.1:{port}",
                "--allow-plaintext",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            clock, answer = asyncio.run(talk(port, command, since))
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                _, err = proc.communicate(timeout=15)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
                rc = -9
        assert rc == 0, err.decode()[-2000:]
        return clock, answer, rc

    with plain_broker() as b:
        clock, answer, rc = run(b.port, "start")
        assert isinstance(answer, dict) and answer["ok"] is True, answer
        assert clock["started"] is True and rc == 0
        again, _, rc = run(b.port, None)  # the retained clock is the restarted service's
        assert again["started"] is True and rc == 0
    assert (tmp_path / "ev.db").exists()
