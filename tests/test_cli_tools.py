"""The table commands a technician runs first: ``doctor`` says each check as it runs, and
``calibrate`` and ``enroll`` on a reader port that does not exist stop at once
naming the path, instead of waiting out the reader timeout.

The ``railguard`` entry point as a real subprocess (``tests/tools/tools_rig.Cli``)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

import pytest

from firmware_bridge.ports import port_problem
from tests.tools.tools_rig import Cli, run, write_config

MISSING = "/dev/ttyRG-no-such-port9"
CONNACK_NOT_AUTHORISED = bytes([0x20, 0x02, 0x00, 0x05])  # MQTT 3.1.1 CONNACK, return code 5


def _silent_broker() -> socket.socket:
    """A loopback listener that says nothing until the test answers: the broker check
    against it lasts until the test sends the CONNACK."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.setblocking(False)
    return srv


@pytest.mark.timeout(60)
def test_doctor_prints_each_check_while_the_next_still_runs(tmp_path: Path) -> None:
    srv = _silent_broker()
    port = srv.getsockname()[1]
    cfg = write_config(tmp_path, MISSING, extra='\n[gpio]\npin_factory = "mock"\n')
    cfg.write_text(cfg.read_text().replace('host = "127.0.0.1"',
                                           f'host = "127.0.0.1"\nport = {port}'))  # fmt: skip

    async def go() -> None:
        cli = await Cli.start("doctor", "--config", str(cfg), "--timeout", "600")
        try:
            await cli.expect(r"^PASS  config ")
            await cli.expect(r"^FAIL  reader .*no such file")
            await cli.expect(r"^PASS  gpio ")
            await cli.expect(rf"^\.\.\.\.  broker  connecting to 127\.0\.0\.1:{port}")
            # the broker check waits on the silent listener (up to 600 s): still running
            assert cli.proc.returncode is None
            loop = asyncio.get_running_loop()
            conn, _ = await loop.sock_accept(srv)
            await loop.sock_recv(conn, 1024)  # its CONNECT
            await loop.sock_sendall(conn, CONNACK_NOT_AUTHORISED)  # the check ends now
            await cli.expect(r"^FAIL  broker ")
            await cli.expect(r"-> check mqtt.username/password")
            conn.close()
            assert await cli.finish() == 1
            assert "doctor: 2 of 6 checks failed (reader, broker)" in cli.text
        finally:
            await cli.kill()
            with contextlib.suppress(OSError):
                srv.close()

    run(go())


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "command",
    [
        ["calibrate"],
        ["enroll", "--deck", "d1", "--source", "antenna:3"],
    ],
)
def test_a_port_that_does_not_exist_fails_at_once(tmp_path: Path, command: list[str]) -> None:
    """Exit 2 naming the path; with a 600 s reader timeout, waiting would end the test."""
    cfg = write_config(tmp_path, MISSING)
    sub, *tail = command

    async def go() -> None:
        cli = await Cli.start(sub, "--config", str(cfg), "--reader-timeout", "600", *tail)
        try:
            assert await cli.finish(timeout=50) == 2, cli.text
            assert f"{MISSING} (no such file)" in cli.text
            assert "reader.ports" in cli.text
        finally:
            await cli.kill()

    run(go())


def test_the_ports_found_are_named(tmp_path: Path) -> None:
    for name in ("ttyACM0", "ttyACM1"):
        (tmp_path / name).touch()
    problem = port_problem([MISSING, "/dev/ttyRG-none*"], globs=[str(tmp_path / "ttyACM*")])
    assert problem is not None
    assert f"{MISSING} (no such file)" in problem
    assert "/dev/ttyRG-none* (matches nothing)" in problem
    assert f"serial ports found: {tmp_path / 'ttyACM0'}, {tmp_path / 'ttyACM1'}" in problem
    assert port_problem([MISSING, str(tmp_path / "ttyACM1")]) is None  # one is there: try it
    assert port_problem(["socket://127.0.0.1:9"]) is None  # only connecting tells
