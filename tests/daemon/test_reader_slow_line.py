"""A long frame on a slow line: the daemon's changes-only burst timer (reader.Settler) does not
close a scan cycle while a frame of its burst is still arriving (``SerialReaderLink.receiving``),
so the frame's change lands in its own cycle instead of being carried, late, into the next.
Real pty board (hwsim) whose line delivers one frame in two parts, real mosquitto, the real
Daemon."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from firmware_bridge.antennas import burst_gap
from firmware_bridge.protocol import Message, SetConfig
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard
from tests.daemon.reader_rig import HOLE1, HOLE2, run_scenario, running, until

SCAN_MS = 200
P = SCAN_MS / 1000
CARD_A = bytes.fromhex("04a1b2c3d4e5f6")
CARD_B = bytes.fromhex("04a1b2c3d4e5f7")


class SlowLineBoard(SimBoard):
    """Delivers HOLE2's next ANTENNA_STATE in two parts, ``pause`` apart (as a long frame on
    a slow UART does); whatever the board sends meanwhile follows the frame's second part."""

    def __init__(self, pause: float) -> None:
        super().__init__(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
        self.pause = pause
        self.split_next = False
        self.split_done = False
        self._splitting = False
        self._held = bytearray()

    def _send(self, message: Message) -> None:
        self._splitting = (
            self.split_next and isinstance(message, AntennaSnapshot) and message.antenna == HOLE2
        )
        super()._send(message)

    def _emit(self, data: bytes) -> None:
        if self._held or (self._splitting and self.split_next):
            if not self._held:  # the frame to split: its first part goes now
                self.split_next = False
                half = len(data) // 2
                super()._emit(data[:half])
                self._held += data[half:]
                asyncio.get_running_loop().call_later(self.pause, self._release)
            else:
                self._held += data
            return
        super()._emit(data)

    def _release(self) -> None:
        rest, self._held = bytes(self._held), bytearray()
        super()._emit(rest)
        self.split_done = True


async def _scenario(tmp_path: Path, mqtt_port: int) -> None:
    gap = burst_gap(115200)  # the daemon's default line speed
    board = SlowLineBoard(pause=5 * gap)  # the frame's second part comes 5 gaps later
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS, removal_cycles=3,
                       full_refresh_cycles=255) as daemon:  # fmt: skip
        assert daemon.reader is not None
        await until(lambda: board.config.changes_only, 5, "the board set to changes only")
        await until(lambda: daemon.tracker.cycles >= 3, 5, "the tracker to run some cycles")
        start = board.cycle
        await until(lambda: board.cycle != start, 2, "a scan cycle")
        late = daemon.tracker.late_frames
        # one burst: HOLE1's frame, then HOLE2's frame, delivered in two parts
        board.split_next = True
        board.place(HOLE1, CARD_A)
        board.place(HOLE2, CARD_B)
        await until(lambda: daemon.reader is not None and daemon.reader.receiving, 2 * P,
                     "the first part of HOLE2's frame")  # fmt: skip
        await until(lambda: board.split_done, 2 * P, "the rest of HOLE2's frame")
        present = daemon.tracker.present
        await until(lambda: CARD_A in present() and CARD_B in present(), 4 * P,
                     "both cards confirmed")  # fmt: skip
        # the frame is whole (and the reader's hold after the cards' alerts, 1 ms, over)
        await until(lambda: daemon.reader is not None and not daemon.reader.receiving, P,
                    "nothing more arriving")  # fmt: skip
        # HOLE2's frame was part of its own cycle, not a late frame carried into the next
        assert daemon.tracker.late_frames == late, (daemon.tracker.late_frames, late)


@pytest.mark.timeout(60)
def test_a_frame_still_arriving_holds_the_burst_open(tmp_path: Path) -> None:
    run_scenario(_scenario, tmp_path)
