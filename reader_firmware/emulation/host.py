"""The reader firmware running on a PC, its front ends emulated, its bytes on a pty.

:class:`FirmwareBoard` stands where ``hwsim.board.SimBoard`` stands (same ``start_pty``,
``place``, ``remove``, ``stop``): the pyserial side opens the pty and sees the bytes the
firmware's own encoder made, scan cycle after scan cycle, as from a Pico on USB. The felt
is a :class:`TableModel`; each antenna has an :class:`EmulatedPN5180`. The firmware's main
loop runs every millisecond of the event loop's clock; a scan cycle keeps it busy for the
cycle's modelled air time before its frames go out (``realtime``), so the emulated board's
latency is the timing model's; a software watchdog restarts it with reset reason 2 when the
loop stops feeding it (as the RP2040's watchdog does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tty
from pathlib import Path

from firmware_bridge.protocol import SetConfig
from reader_firmware import protocol as P
from reader_firmware.emulation.pn5180_emu import EmulatedPN5180
from reader_firmware.emulation.table_model import TableModel
from reader_firmware.firmware import Firmware, SerialPort
from reader_firmware.pn5180 import PN5180

log = logging.getLogger(__name__)

TX_BUFFER_LIMIT = 16 * 1024  # the USB CDC buffer of the emulated Pico
LOOP_MS = 1  # the main loop's pass
WATCHDOG_MS = 2000  # the Pico binding arms machine.WDT with this timeout


class PtyPort(SerialPort):
    """The firmware's serial port on a pty master (non-blocking both ways)."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.tx = bytearray()
        self.hold = False  # the MCU is still scanning: what it wrote goes out after

    def read(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> bool:
        if len(self.tx) + len(data) > TX_BUFFER_LIMIT:
            return False
        self.tx += data
        self.flush()
        return True

    def flush(self) -> None:
        if not self.tx or self.hold:
            return
        try:
            n = os.write(self.master, self.tx)
        except BlockingIOError:
            return
        except OSError:
            self.tx.clear()
            return
        del self.tx[:n]


class FirmwareBoard:
    """The firmware and its emulated front ends on a pty; see the module docstring."""

    def __init__(
        self,
        antenna_count: int = 8,
        *,
        board_id: int = 0x52470002,
        config: SetConfig | None = None,
        seed: int = 0,
        realtime: bool = True,
    ) -> None:
        self.antenna_count = antenna_count
        # realtime: a scan cycle keeps the emulated MCU busy for its modelled air time
        # (reader_firmware.timing) before its frames go out and the next command is read,
        # as on the Pico; False: scans take no time (frames at the cycle's start)
        self.realtime = realtime
        self._busy_until = 0
        self.board_id = board_id
        self.model = TableModel(antenna_count, seed)
        self.chips = [EmulatedPN5180(self.model, a) for a in range(antenna_count)]
        self.boot_config = config  # applied after power-on, as if set by the host
        self.firmware: Firmware | None = None
        self.path: str | None = None
        self.hung = False  # the main loop stops (the watchdog's test)
        self.boots: list[int] = []  # the reset reason of every boot
        self._master: int | None = None
        self._slave: int | None = None
        self._symlink: Path | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: PtyPort | None = None
        self._last_feed = 0

    # ---- lifecycle ------------------------------------------------------------------------

    async def start_pty(self, symlink: str | Path | None = None) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.path = os.ttyname(slave)
        self._port = PtyPort(master)
        published = self.path
        if symlink is not None:
            self._symlink = Path(symlink)
            self._symlink.unlink(missing_ok=True)
            self._symlink.symlink_to(self.path)
            published = str(self._symlink)
        self._power_on(P.RESET_POWER_ON)
        self._task = asyncio.create_task(self._main_loop(), name="reader-firmware")
        log.info("reader firmware (emulated front ends) plugged in at %s", published)
        return published

    def _now_ms(self) -> int:
        return int(asyncio.get_running_loop().time() * 1000)

    def _power_on(self, reason: int) -> None:
        assert self._port is not None
        self.boots.append(reason)
        fronts = [PN5180(c) for c in self.chips]
        self.firmware = Firmware(fronts, self._port, self.board_id, reason, self._now_ms())
        self._last_feed = self._now_ms()
        self._busy_until = 0
        self._port.hold = False
        if self.boot_config is not None:  # the test rig's scan period, as SimBoard takes it
            c = self.boot_config
            self.firmware.config = P.Config(c.scan_period_ms, c.heartbeat_interval_ms,
                                            c.report_rssi, c.changes_only,
                                            c.full_refresh_cycles)  # fmt: skip

    async def _main_loop(self) -> None:
        while True:
            await asyncio.sleep(LOOP_MS / 1000)
            now = self._now_ms()
            if self._port is None or self.firmware is None:
                continue
            if now < self._busy_until:
                continue  # the MCU is in the middle of its scan
            self._port.hold = False
            if not self.hung:
                cycle = self.firmware.cycle
                self.firmware.poll(now)
                self._last_feed = now  # machine.WDT.feed() after each pass
                if self.realtime and self.firmware.cycle != cycle:
                    self._busy_until = now + round(self.firmware.last_cycle_us / 1000)
                    self._port.hold = True
            elif now - self._last_feed > WATCHDOG_MS:
                self.hung = False
                self._power_on(P.RESET_WATCHDOG)
            self._port.flush()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._port = None
        if self._symlink is not None:
            self._symlink.unlink(missing_ok=True)
            self._symlink = None

    async def __aenter__(self) -> FirmwareBoard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---- the felt -------------------------------------------------------------------------

    def place(self, antenna: int, uid: bytes, rssi: int = 180) -> None:
        """Lay an ISO 15693 tag (8-byte UID) on ``antenna`` (``rssi`` is SimBoard's; the
        firmware reports a read rate instead)."""
        self._check(antenna)
        self.model.place(antenna, uid)

    def remove(self, antenna: int, uid: bytes) -> None:
        self._check(antenna)
        self.model.remove(antenna, bytes(uid))

    def tags_on(self, antenna: int) -> list[bytes]:
        return list(self.model.antennas[antenna].tags)

    def _check(self, antenna: int) -> None:
        if not 0 <= antenna < self.antenna_count:
            raise ValueError(f"antenna {antenna} is outside 0..{self.antenna_count - 1}")

    # ---- faults ---------------------------------------------------------------------------

    def pull_front_end(self, antenna: int) -> None:
        """The antenna's PN5180 stops answering (BUSY stuck, as with a loose ribbon)."""
        self.model.antennas[antenna].present = False

    def plug_front_end(self, antenna: int) -> None:
        self.model.antennas[antenna].present = True

    def power_cycle(self) -> None:
        """Cut the board's power and restore it: HELLO with reset reason 0 (power-on)."""
        self.hung = False
        self._power_on(P.RESET_POWER_ON)

    def hang(self) -> None:
        """The firmware's main loop stops; the watchdog restarts it after WATCHDOG_MS."""
        self.hung = True
