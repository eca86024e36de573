"""The Raspberry Pi Pico binding: SPI, the front-end select, USB CDC, the watchdog, reset
reasons. MicroPython only (``machine``); copy ``reader_firmware/`` to the Pico's flash and
``reader_firmware/main.py`` to its root (docs/reader-board.md, "Flashing").

Wiring (docs/reader-board.md, "Wiring"): SPI0 on GP18 (SCK), GP19 (MOSI), GP16 (MISO); the
front end's number on GP2..GP5 drives a 74HC154 4-to-16 decoder whose outputs are the
PN5180s' NSS lines (enabled by GP6, active low) and a 74HC4067 16:1 multiplexer that brings
the same front end's BUSY to GP7; GP8 drives every PN5180's RST (active low).
"""

import os
import struct
import sys
import time

import machine
import micropython

from reader_firmware import protocol as P
from reader_firmware.firmware import Firmware, SerialPort
from reader_firmware.pn5180 import PN5180, FrontEndError, SpiPort

ANTENNAS = 16
SPI_BAUD = 7_000_000  # the PN5180's SPI runs up to 7 MHz (datasheet)
BUSY_TIMEOUT_US = 10_000
WATCHDOG_MS = 2000
MARKER = "/rg_reset"  # the reset reason for the next boot (host request, panic, update)


class DecodedPort(SpiPort):
    """One PN5180 behind the shared bus: its number on the decoder, its BUSY on the mux."""

    bus = None
    addr = ()  # the four address pins, set by run()

    def __init__(self, number: int, enable: object, busy: object, rst: object) -> None:
        self.number = number
        self.enable = enable
        self.busy = busy
        self.rst = rst

    def _select(self) -> None:
        for bit in range(4):
            self.addr[bit].value((self.number >> bit) & 1)

    def _wait_busy(self, level: int) -> None:
        start = time.ticks_us()
        while self.busy.value() != level:
            if time.ticks_diff(time.ticks_us(), start) > BUSY_TIMEOUT_US:
                raise FrontEndError("front end %d: BUSY stuck" % self.number, 0xFFFF)

    def exchange(self, tx: bytes, rx_len: int = 0) -> bytes:
        self._select()
        self._wait_busy(0)
        self.enable.value(0)  # NSS low
        self.bus.write(tx)
        self.enable.value(1)
        self._wait_busy(0)
        if not rx_len:
            return b""
        self.enable.value(0)
        rx = self.bus.read(rx_len, 0xFF)
        self.enable.value(1)
        self._wait_busy(0)
        return bytes(rx)

    def reset(self) -> None:
        self.rst.value(0)
        time.sleep_ms(1)
        self.rst.value(1)
        time.sleep_ms(3)  # the chip's boot time

    def wait_us(self, us: float) -> None:
        time.sleep_us(int(us))


class UsbPort(SerialPort):
    """USB CDC through MicroPython's stdin/stdout, Ctrl-C disabled (frames carry 0x03)."""

    def __init__(self) -> None:
        import select

        micropython.kbd_intr(-1)
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer

    def read(self) -> bytes:
        data = b""
        while len(data) < 512 and self.poll.poll(0):
            byte = self.inp.read(1)
            if not byte:  # end of input (a closed pipe on the unix port's test run)
                break
            data += byte
        return data

    def write(self, data: bytes) -> bool:
        self.out.write(data)
        return True


def reset_reason() -> int:
    """From the marker file (host request, panic, firmware update), else the chip's cause."""
    try:
        with open(MARKER) as f:
            reason = int(f.read())
        os.remove(MARKER)
        return reason
    except (OSError, ValueError):
        pass
    if machine.reset_cause() == machine.WDT_RESET:
        return P.RESET_WATCHDOG
    return P.RESET_POWER_ON  # the RP2040 does not tell a brown-out from a power-on


def restart(reason: int) -> None:
    with open(MARKER, "w") as f:
        f.write(str(reason))
    machine.reset()


def run() -> None:
    DecodedPort.bus = machine.SPI(
        0, baudrate=SPI_BAUD, polarity=0, phase=0,
        sck=machine.Pin(18), mosi=machine.Pin(19), miso=machine.Pin(16),
    )  # fmt: skip
    DecodedPort.addr = tuple(machine.Pin(p, machine.Pin.OUT) for p in (2, 3, 4, 5))
    enable = machine.Pin(6, machine.Pin.OUT, value=1)
    busy = machine.Pin(7, machine.Pin.IN)
    rst = machine.Pin(8, machine.Pin.OUT, value=1)
    board_id = struct.unpack("<I", machine.unique_id()[:4])[0]
    fronts = [PN5180(DecodedPort(n, enable, busy, rst)) for n in range(ANTENNAS)]
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    fw = Firmware(fronts, UsbPort(), board_id, reset_reason(), 0, restart=restart)
    now = 0  # ms since boot; ticks_ms wraps at 2**30, so count the differences
    last = time.ticks_ms()
    try:
        while True:
            tick = time.ticks_ms()
            now += time.ticks_diff(tick, last)
            last = tick
            fw.poll(now)
            wdt.feed()
    except Exception:  # a bug: restart with reset reason "panic" rather than hang
        restart(P.RESET_PANIC)
