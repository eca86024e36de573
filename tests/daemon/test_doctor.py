"""railguard doctor against the simulated board on a pty and a private mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.daemon.doctor import run_checks, table
from hwsim.board import SimBoard
from tests.brokers import free_port, plain_broker


def _write(tmp: Path, port: str, mqtt_port: int) -> Path:
    p = tmp / "rg.toml"
    p.write_text(
        f'[reader]\nports = ["{port}"]\n[gpio]\npin_factory = "mock"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\ntls = false\nallow_plaintext = true\n'
        f'[storage]\npath = "{tmp}"\n'
    )
    return p


@pytest.mark.timeout(30)
def test_doctor_all_pass_then_failures(tmp_path: Path) -> None:
    async def scenario(mqtt_port: int) -> None:
        board = SimBoard(24)
        port = await board.start_pty()
        try:
            checks = await run_checks(_write(tmp_path, port, mqtt_port), timeout=3)
            assert all(c.ok for c in checks), table(checks)
            assert "24 antennas" in table(checks)
        finally:
            await board.stop()
        checks = await run_checks(_write(tmp_path, "/dev/nonexistent-rg", free_port()), 1)
        by = {c.name: c for c in checks}
        assert by["config"].ok and by["gpio"].ok and by["pcsc"].ok
        assert not by["reader"].ok and "reader.ports" in by["reader"].fix
        assert "/dev/nonexistent-rg (no such file)" in by["reader"].detail
        assert not by["broker"].ok and "broker running" in by["broker"].fix
        assert "FAIL" in table(checks) and "->" in table(checks)

    with plain_broker() as b:
        asyncio.run(scenario(b.port))


def test_doctor_bad_config(tmp_path: Path) -> None:
    p = tmp_path / "rg.toml"
    p.write_text("[reader]\nscan_period_ms = 1\n")
    checks = asyncio.run(run_checks(p))
    assert len(checks) == 1 and not checks[0].ok and "reader" in checks[0].detail
