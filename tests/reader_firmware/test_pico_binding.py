"""reader_firmware/pico.py, unmodified, under MicroPython's unix port (run_pico.py) with a
stand-in ``machine`` whose SPI bus reaches 16 emulated PN5180s through the wiring of
docs/reader-board.md (address pins, NSS strobe, BUSY multiplexer): USB frames in on stdin,
out on stdout, read with firmware_bridge; a RESET leaves its reason for the next boot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    Ack,
    ErrorCode,
    ErrorReport,
    Frame,
    FrameDecoder,
    GetSnapshot,
    Hello,
    MessageType,
    Ping,
    Reset,
    ResetReason,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
pytestmark = pytest.mark.skipif(not MICROPYTHON.exists(), reason="no MicroPython unix port")


def pico(commands: bytes, marker: Path) -> list[object]:
    done = subprocess.run(
        [str(MICROPYTHON), str(Path(__file__).with_name("run_pico.py")), str(ROOT), str(marker)],
        input=commands, capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    items = FrameDecoder().feed(done.stdout)
    return [i.message for i in items if isinstance(i, Frame)]


def test_the_pico_binding_boots_scans_and_answers(tmp_path: Path) -> None:
    marker = tmp_path / "rg_reset"
    msgs = pico(encode_frame(Ping(), 0) + encode_frame(GetSnapshot(3), 1), marker)
    assert msgs[0] == Hello(1, msgs[0].firmware, 0x12345678, 16, ResetReason.POWER_ON)  # type: ignore[union-attr]
    assert msgs[1] == ErrorReport(ErrorCode.ANTENNA_INIT_FAILED, 5, 0xFFFF)  # BUSY stuck
    acks = [m.acked_type for m in msgs if isinstance(m, Ack)]
    assert acks == [MessageType.PING, MessageType.GET_SNAPSHOT]
    stack = [m for m in msgs if isinstance(m, AntennaSnapshot) and m.antenna == 3 and m.tags]
    assert stack and {t.uid.hex() for t in stack[-1].tags} == {"e004010203040506",
                                                               "e004010203040516"}  # fmt: skip
    cycles = {m.cycle for m in msgs if isinstance(m, AntennaSnapshot)}
    assert len(cycles) >= 3
    assert not marker.exists()


def test_a_reset_command_is_the_next_boots_reason(tmp_path: Path) -> None:
    marker = tmp_path / "rg_reset"
    msgs = pico(encode_frame(Reset(), 0), marker)
    assert Ack(MessageType.RESET, 0) in msgs
    assert marker.read_text() == "1"  # written before machine.reset()
    again = pico(b"", marker)
    assert isinstance(again[0], Hello) and again[0].reset_reason is ResetReason.HOST_REQUEST
    assert not marker.exists()
