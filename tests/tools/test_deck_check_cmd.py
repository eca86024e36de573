"""``railguard deck check`` as a subprocess against hwsim's SimBoard on a pty."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_rig import FAST_BOARD, Cli, run, write_config

from controller.daemon.config import load
from controller.daemon.table_store import TableStore
from controller.rules.cards import Card
from firmware_bridge.decks import DEFAULT_ORDER
from hwsim.board import SimBoard

pytestmark = pytest.mark.timeout(60)

ANTENNAS = 16
CHIP = bytes.fromhex("C0C0C0C0")


def uid(deck: str, i: int) -> bytes:
    return bytes.fromhex(f"04{i:02X}{deck.encode().hex()[:8]:0<8}00")


def enrol(cfg_path: Path) -> None:
    cfg = load(cfg_path)
    cfg.storage.mkdir(parents=True, exist_ok=True)
    store = TableStore(cfg.table_db)
    try:
        for deck in ("red", "blue"):
            store.enrol_deck(deck, {str(c): uid(deck, i).hex().upper()
                                    for i, c in enumerate(DEFAULT_ORDER)})  # fmt: skip
    finally:
        store.close()


def lay_out(board: SimBoard, uids: list[bytes]) -> None:
    """Spread the cards over the antennas (a few per antenna, as on a table)."""
    for n, u in enumerate(uids):
        board.place(n % ANTENNAS, u)


async def check(tmp_path: Path, uids: list[bytes], flicker: float = 0.0) -> tuple[int, Cli]:
    board = SimBoard(ANTENNAS, config=FAST_BOARD, seed=7)
    port = await board.start_pty(tmp_path / "reader")
    for a in range(ANTENNAS):
        board.effects(a).flicker = flicker
    cfg = write_config(tmp_path, port, extra=f'\n[chips]\n"{CHIP.hex()}" = 100\n')
    if not (tmp_path / "state" / "table.db").exists():
        enrol(cfg)
    lay_out(board, uids)
    cli = await Cli.start("deck", "check", "--config", str(cfg), "--deck", "red")
    try:
        code = await cli.finish(timeout=20)
    finally:
        await cli.kill()
        await board.stop()
    return code, cli


RED = [uid("red", i) for i in range(52)]


def test_a_complete_deck_passes_even_with_flicker(tmp_path: Path) -> None:
    async def main() -> None:
        code, cli = await check(tmp_path, RED, flicker=0.1)
        assert code == 0, cli.text
        assert cli.lines[-2:] == ["deck red: 52 cards of the deck seen", "deck complete"]

    run(main())


def test_missing_extra_and_duplicate_cards_are_reported(tmp_path: Path) -> None:
    foreign = bytes.fromhex("DEADBEEF")
    blue_ace = uid("blue", 51)  # As of the blue deck: a duplicate face and an extra tag
    tags = [u for i, u in enumerate(RED) if i not in (0, 25)] + [foreign, blue_ace, CHIP]

    async def main() -> None:
        code, cli = await check(tmp_path, tags)
        assert code == 1, cli.text
        out = cli.text
        assert f"missing (2): 2c {Card.parse('Ad')}" in out
        assert "extra (3):" in out and "unregistered tag DEADBEEF" in out
        assert f"As of deck blue (tag {blue_ace.hex().upper()})" in out
        assert "a 100 chip (tag C0C0C0C0)" in out
        assert "duplicate: As" in out
        assert "deck complete" not in out

    run(main())


def test_an_unknown_deck_is_named(tmp_path: Path) -> None:
    async def main() -> None:
        cfg = write_config(tmp_path, str(tmp_path / "no-board"))
        enrol(cfg)
        cli = await Cli.start("deck", "check", "--config", str(cfg), "--deck", "green")
        try:
            assert await cli.finish() == 2
        finally:
            await cli.kill()
        assert "deck 'green' is not enrolled (enrolled: blue, red)" in cli.text

    run(main())
