"""``railguard enroll`` as a subprocess: from a table antenna (hwsim SimBoard on a pty) and from
the PC/SC desk reader (a real pcscd + vpcd, hwsim.vpicc as the card)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tools_rig import FAST_BOARD, Cli, Pcscd, run, write_config

from controller.daemon.config import load
from controller.daemon.table_store import TableStore
from firmware_bridge.decks import DEFAULT_ORDER
from hwsim.board import SimBoard
from hwsim.vpicc import VirtualCard

pytestmark = pytest.mark.timeout(120)

# pcscd_session / pcscd come from tests/conftest.py (one pcscd per test session)

ANTENNA = 3
PROGRESS = r"\] (\d+)/52 (next: (\S+)|complete)$"


def red_uid(i: int) -> bytes:
    return bytes.fromhex(f"04{i:02X}5245440000")


def blue_uid(i: int) -> bytes:
    return bytes.fromhex(f"04{i:02X}424C550000")


def stored(cfg_path: Path) -> dict[str, dict[str, str]]:
    cfg = load(cfg_path)
    store = TableStore(cfg.table_db)
    try:
        return {d: store.deck(d) for d in store.decks()}
    finally:
        store.close()


def store_blue(cfg_path: Path) -> None:
    cfg = load(cfg_path)
    cfg.storage.mkdir(parents=True, exist_ok=True)
    store = TableStore(cfg.table_db)
    try:
        store.enrol_deck("blue", {str(c): blue_uid(i).hex().upper() for i, c in
                                  enumerate(DEFAULT_ORDER)})  # fmt: skip
    finally:
        store.close()


def test_enroll_from_an_antenna_stores_the_deck_and_refuses_duplicates(tmp_path: Path) -> None:
    async def main() -> None:
        board = SimBoard(8, config=FAST_BOARD)
        port = await board.start_pty(tmp_path / "reader")
        cfg = write_config(tmp_path, port)
        store_blue(cfg)

        async def lay(uid: bytes) -> None:
            board.place(ANTENNA, uid)
            await asyncio.sleep(0.08)  # several scan cycles: confirmed
            board.remove(ANTENNA, uid)

        cli = await Cli.start("enroll", "--config", str(cfg), "--deck", "red",
                              "--source", f"antenna:{ANTENNA}", "--back", "red")  # fmt: skip
        try:
            await cli.expect(r"enrolling deck red: 52 cards")
            await cli.expect(rf"lay each card on antenna {ANTENNA}")
            for i in range(len(DEFAULT_ORDER)):
                if i == 5:  # 2c's tag again: refused, the wizard still wants 7c
                    await lay(red_uid(0))
                    await cli.expect(r"refused: tag 04005245440000 is already enrolled in this"
                                     r" deck as 2c; read 7c next")  # fmt: skip
                if i == 9:  # a card of the blue deck
                    await lay(blue_uid(12))
                    await cli.expect(r"refused: tag 040C424C550000 is Ac of deck blue")
                await lay(red_uid(i))
                m = await cli.expect(PROGRESS)
                assert int(m.group(1)) == i + 1
                if i + 1 < 52:
                    assert m.group(3) == str(DEFAULT_ORDER[i + 1])
            await cli.expect(r"deck red \(back red\): 52 cards stored")
            assert await cli.finish() == 0, cli.text
        finally:
            await cli.kill()
            await board.stop()
        assert "[####################] 52/52 complete" in cli.lines
        assert "[####................] 12/52 next: Ac" in cli.lines
        decks = stored(cfg)
        assert decks["red"] == {str(c): red_uid(i).hex().upper() for i, c in
                                enumerate(DEFAULT_ORDER)}  # fmt: skip
        assert len(decks["blue"]) == 52  # untouched

    run(main())


def test_board_unplugged_mid_enrolment_stores_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        board = SimBoard(8, config=FAST_BOARD)
        port = await board.start_pty(tmp_path / "reader")
        cfg = write_config(tmp_path, port)
        cli = await Cli.start("enroll", "--config", str(cfg), "--deck", "red",
                              "--source", f"antenna:{ANTENNA}")  # fmt: skip
        try:
            await cli.expect(rf"lay each card on antenna {ANTENNA}")
            for i in range(2):
                board.place(ANTENNA, red_uid(i))
                await cli.expect(rf"\] {i + 1}/52 ")
                board.remove(ANTENNA, red_uid(i))
            board.unplug()
            await cli.expect(r"the reader board went away .*stopped at 2/52 \(next was 4c\):"
                             r" deck red NOT stored")  # fmt: skip
            assert await cli.finish() == 1, cli.text
        finally:
            await cli.kill()
            await board.stop()
        assert stored(cfg) == {}

    run(main())


def test_enroll_refuses_a_bad_source_and_a_missing_board(tmp_path: Path) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, str(tmp_path / "no-such-tty"))
        bad = await Cli.start("enroll", "--config", str(cfg), "--deck", "red",
                              "--source", "antenna")  # fmt: skip
        gone = await Cli.start("enroll", "--config", str(cfg), "--deck", "red",
                               "--source", "antenna:2", "--reader-timeout", "0.5")  # fmt: skip
        try:
            assert await bad.finish() == 2
            assert await gone.finish() == 2
        finally:
            await bad.kill()
            await gone.kill()
        assert "--source 'antenna': expected 'pcsc' or 'antenna:N'" in bad.text
        assert "no-such-tty (no such file)" in gone.text and "NOT stored" in gone.text
        assert stored(cfg) == {}

    run(main())


# ---------------------------------------------------------------- PC/SC desk reader


async def _tap_until(cli: Cli, card: VirtualCard, uid: bytes, pattern: str) -> None:
    await asyncio.to_thread(card.insert, uid.hex())
    await cli.expect(pattern)
    await asyncio.to_thread(card.remove)


def test_enroll_from_pcsc_refuses_a_duplicate_and_stores_nothing_when_the_reader_goes(
    tmp_path: Path, pcscd: Pcscd
) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, "/dev/null", pcsc=True)
        card = VirtualCard(port=pcscd.slot_ports[0])
        cli = await Cli.start("enroll", "--config", str(cfg), "--deck", "red")
        try:
            await cli.expect(r"desk reader ready \(Virtual PCD 00 00")
            for i in range(3):
                await _tap_until(cli, card, red_uid(i), rf"\] {i + 1}/52 next: ")
            await _tap_until(cli, card, red_uid(1),
                             r"refused: tag 04015245440000 is already enrolled in this deck as"
                             r" 3c; read 5c next")  # fmt: skip
            await _tap_until(cli, card, red_uid(3), r"\] 4/52 next: 6c")
            await asyncio.to_thread(pcscd.stop)  # the desk reader is pulled out
            await cli.expect(r"the desk reader went away .*stopped at 4/52 \(next was 6c\):"
                             r" deck red NOT stored", timeout=15)  # fmt: skip
            assert await cli.finish() == 1, cli.text
        finally:
            await cli.kill()
            card.close()
        assert stored(cfg) == {}

    run(main(), timeout=90)


@pytest.mark.slow
def test_enroll_a_whole_deck_from_pcsc(tmp_path: Path, pcscd: Pcscd) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, "/dev/null", pcsc=True)
        card = VirtualCard(port=pcscd.slot_ports[0])
        cli = await Cli.start("enroll", "--config", str(cfg), "--deck", "red")
        try:
            await cli.expect(r"desk reader ready")
            for i in range(52):
                await _tap_until(cli, card, red_uid(i), rf"\] {i + 1}/52 ")
            assert await cli.finish() == 0, cli.text
        finally:
            await cli.kill()
            card.close()
        assert len(stored(cfg)["red"]) == 52

    run(main(), timeout=240)
