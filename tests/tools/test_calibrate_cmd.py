"""``railguard calibrate`` as a subprocess against hwsim's SimBoard on a pty: the test lays a
card on the antenna each prompt asks for, and checks the zone map printed or written."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from tools_rig import FAST_BOARD, Cli, run, write_config

from controller.daemon.config import load
from controller.tools.calibrate import replace_zones
from firmware_bridge.zones import BOARD, BURN, MUCK, Zone, ZoneMap
from hwsim.board import SimBoard

pytestmark = pytest.mark.timeout(90)

CARD = bytes.fromhex("04a1b2c3d4e5f6")
LEFTOVER = bytes.fromhex("04ffffffffff01")  # lying on the table before the wizard starts
PROMPT = r"Place a card on (.+) \(step (\d+)/(\d+)\)"


async def _drive(cli: Cli, board: SimBoard, where: dict[str, int], wrong: dict[str, int]) -> None:
    """Answer each prompt: move the card to the antenna of the zone asked for (first to a
    wrong, already calibrated antenna when ``wrong`` says so)."""
    on: int | None = None

    def move(antenna: int) -> None:
        nonlocal on
        if on is not None:
            board.remove(on, CARD)
        board.place(antenna, CARD)
        on = antenna

    while True:
        m = await cli.expect(PROMPT + "|calibration complete")
        if m.group(1) is None:
            return
        label = m.group(1)
        if label in wrong:
            move(wrong[label])
            await cli.expect(r"That card is on .* which is done; place a card on " + label)
        move(where[label])
        await cli.expect(rf"^{label}: antenna {where[label]}$")


def test_calibrate_prints_the_zone_map_of_the_antennas_touched(tmp_path: Path) -> None:
    where = {"seat 1's hole-card spot": 5, "seat 2's hole-card spot": 0,
             "seat 3's hole-card spot": 8, "the board": 9, "the burn": 3, "the muck": 11,
             "seat 1's betting zone": 7, "seat 2's betting zone": 1,
             "seat 3's betting zone": 6}  # fmt: skip
    wrong = {"seat 3's hole-card spot": 5}  # laid on seat 1's spot first: refused

    async def main() -> None:
        board = SimBoard(12, config=FAST_BOARD)
        port = await board.start_pty(tmp_path / "reader")
        board.place(4, LEFTOVER)
        cfg = write_config(tmp_path, port)
        cli = await Cli.start("calibrate", "--config", str(cfg), "--seats", "3",
                              "--confirm-cycles", "4")  # fmt: skip
        try:
            await cli.expect(r"reader board online \(12 antennas\)")
            await _drive(cli, board, where, wrong)
            assert await cli.finish() == 0, cli.text
        finally:
            await cli.kill()
            await board.stop()
        text = cli.text
        toml = "\n".join(cli.lines[cli.lines.index("[zones]") :])
        zones = ZoneMap.from_dict(tomllib.loads(toml)["zones"])
        assert zones.seats == (1, 2, 3)
        assert dict(zones.items()) == {
            5: Zone.hole(1), 0: Zone.hole(2), 8: Zone.hole(3), 9: BOARD, 3: BURN, 11: MUCK,
            7: Zone.bet(1), 1: Zone.bet(2), 6: Zone.bet(3),
        }  # fmt: skip
        assert 4 not in zones.antennas  # the card left on the table was ignored
        assert "config file is unchanged" not in text

    run(main())


def test_calibrate_write_replaces_only_the_zones_tables(tmp_path: Path) -> None:
    where = {"seat 1's hole-card spot": 2, "seat 2's hole-card spot": 3,
             "board position 1 of 2": 4, "board position 2 of 2": 5, "the burn": 0,
             "the muck": 1}  # fmt: skip
    old_zones = ('[zones]\nseats = 2\nboard = 9\nburn = 10\nmuck = 11\n\n'
                 '[zones.hole]\n1 = 0\n2 = 1\n\n# the log section stays\n')  # fmt: skip

    async def main() -> None:
        board = SimBoard(8, config=FAST_BOARD)
        port = await board.start_pty(tmp_path / "reader")
        cfg = write_config(tmp_path, port, zones=old_zones, extra='\n[log]\nlevel = "DEBUG"\n')
        before = cfg.read_text()
        cli = await Cli.start("calibrate", "--config", str(cfg), "--seats", "2", "--no-bets",
                              "--board-antennas", "2", "--confirm-cycles", "4",
                              "--write")  # fmt: skip
        try:
            await _drive(cli, board, where, {})
            assert await cli.finish() == 0, cli.text
        finally:
            await cli.kill()
            await board.stop()
        assert "zone map written to" in cli.text
        after = cfg.read_text()
        written = load(cfg)
        assert dict(written.zones.items()) == {
            2: Zone.hole(1), 3: Zone.hole(2), 4: BOARD, 5: BOARD, 0: BURN, 1: MUCK,
        }  # fmt: skip
        assert written.log_level == "DEBUG" and written.table == "t7"
        kept = [ln for ln in before.splitlines() if ln not in old_zones.splitlines()]
        assert [ln for ln in after.splitlines() if ln in kept] == kept  # nothing else lost
        assert "# the log section stays" in after and after.count("[zones]") == 1

    run(main())


def test_calibrate_without_a_board_says_so(tmp_path: Path) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, str(tmp_path / "no-such-tty"))
        cli = await Cli.start("calibrate", "--config", str(cfg), "--reader-timeout", "0.5")
        try:
            assert await cli.finish() == 2
        finally:
            await cli.kill()
        assert "no-such-tty (no such file)" in cli.text and "reader.ports" in cli.text
        # a path that is there but no board answers on it: said after the reader timeout
        cfg = write_config(tmp_path, "/dev/null")
        cli = await Cli.start("calibrate", "--config", str(cfg), "--reader-timeout", "0.5")
        try:
            assert await cli.finish() == 2
        finally:
            await cli.kill()
        assert "no reader board answers on /dev/null" in cli.text

    run(main())


def test_calibrate_bad_config_names_the_key(tmp_path: Path) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, "/dev/null", extra='\n[log]\nlevel = "LOUD"\n')
        cli = await Cli.start("calibrate", "--config", str(cfg))
        try:
            assert await cli.finish() == 2
        finally:
            await cli.kill()
        assert "log.level" in cli.text

    run(main())


def test_replace_zones_keeps_the_rest() -> None:
    lines = ["[zones]", "seats = 2"]
    text = (
        '[table]\nid = "a"\n\n[zones]\nseats = 9\n[zones.hole]\n1 = 0\n'
        "\n# mqtt next\n[mqtt]\nx = 1\n"
    )
    assert replace_zones(text, lines) == (
        '[table]\nid = "a"\n\n[zones]\nseats = 2\n\n# mqtt next\n[mqtt]\nx = 1\n'
    )
    appended = '[table]\nid = "a"\n\n[zones]\nseats = 2\n'
    assert replace_zones('[table]\nid = "a"\n', lines) == appended
    assert replace_zones("[zones.bet]\n1 = 3\n", lines) == "[zones]\nseats = 2\n"
