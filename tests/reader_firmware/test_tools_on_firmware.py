"""``railguard doctor`` and ``railguard calibrate`` against the reader firmware's emulation
on a pty, as tests/daemon/test_doctor.py and tests/tools/test_calibrate_cmd.py run them
against hwsim's SimBoard."""

from __future__ import annotations

import asyncio
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from tools_rig import FAST_BOARD, Cli, run, write_config

from controller.daemon.doctor import run_checks, table
from firmware_bridge.zones import BOARD, BURN, MUCK, Zone, ZoneMap
from reader_firmware.emulation.host import FirmwareBoard
from tests.brokers import plain_broker

pytestmark = pytest.mark.timeout(90)
CARD = bytes.fromhex("e004010203040506")
LEFTOVER = bytes.fromhex("e0040102030405ff")


def test_doctor_passes_on_the_firmware(tmp_path: Path) -> None:
    async def scenario(mqtt_port: int) -> None:
        board = FirmwareBoard(24)  # the default zone map reaches antenna 20
        port = await board.start_pty()
        try:
            cfg = tmp_path / "rg.toml"
            cfg.write_text(
                f'[reader]\nports = ["{port}"]\n[gpio]\npin_factory = "mock"\n'
                f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\ntls = false\n'
                f'allow_plaintext = true\n[storage]\npath = "{tmp_path}"\n'
            )
            checks = await run_checks(cfg, timeout=10)  # generous: a loaded CI machine
            assert all(c.ok for c in checks), table(checks)
            assert "24 antennas" in table(checks)
        finally:
            await board.stop()

    with plain_broker() as b:
        asyncio.run(scenario(b.port))


def test_calibrate_finds_the_antennas_through_the_firmware(tmp_path: Path) -> None:
    where = {"seat 1's hole-card spot": 5, "seat 2's hole-card spot": 0, "the board": 9,
             "the burn": 3, "the muck": 11}  # fmt: skip

    async def main() -> None:
        board = FirmwareBoard(12, config=FAST_BOARD)
        board.model.antennas[4].crosstalk = 0.3  # the card on 5 is seen now and then on 4
        port = await board.start_pty(tmp_path / "reader")
        board.place(7, LEFTOVER)
        cfg = write_config(tmp_path, port)
        cli = await Cli.start("calibrate", "--config", str(cfg), "--seats", "2", "--no-bets",
                              "--confirm-cycles", "4", "--reader-timeout", "30")  # fmt: skip
        on: int | None = None
        try:
            # the first line waits for the CLI's start (its imports take seconds on a loaded
            # machine: once 10 s were not enough on the shared 2-core VM at load 10)
            await cli.expect(r"reader board online \(12 antennas\)", timeout=30)
            while True:
                m = await cli.expect(
                    r"Place a card on (.+) \(step (\d+)/(\d+)\)|calibration complete"
                )
                if m.group(1) is None:
                    break
                label = m.group(1)
                if on is not None:
                    board.remove(on, CARD)
                on = where[label]
                board.place(on, CARD)
                await cli.expect(rf"^{label}: antenna {on}$")
            assert await cli.finish() == 0, cli.text
        finally:
            await cli.kill()
            await board.stop()
        toml = "\n".join(cli.lines[cli.lines.index("[zones]") :])
        zones = ZoneMap.from_dict(tomllib.loads(toml)["zones"])
        assert dict(zones.items()) == {5: Zone.hole(1), 0: Zone.hole(2), 9: BOARD, 3: BURN,
                                       11: MUCK}  # fmt: skip
        assert 7 not in zones.antennas

    run(main())
