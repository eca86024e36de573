"""A stand-in for MicroPython's ``machine`` on the unix port (which has none), for
run_pico.py: the Pico's pins, SPI bus and watchdog, with the 16 PN5180s of
reader_firmware/pico.py's wiring emulated behind the decoder and BUSY multiplexer.

The SPI bus talks to the emulated chip whose number the address pins GP2..GP5 select while
GP6 (the decoder's enable, NSS) is low; GP7 reads that chip's BUSY: 1 for ever when the chip
is missing, as on a board with a loose ribbon.
"""

import time

from reader_firmware.emulation.pn5180_emu import EmulatedPN5180
from reader_firmware.emulation.table_model import TableModel

WDT_RESET = 3
PWRON_RESET = 1
MODEL = TableModel(16, 2)
CHIPS = [EmulatedPN5180(MODEL, a) for a in range(16)]
PINS = {}
FEEDS = [0]
RUN_MS = [600]  # how long the run lasts before the watchdog stand-in ends it
START = time.ticks_ms()
READ_COMMANDS = (0x04, 0x07, 0x0A)


class Pin:
    OUT = 1
    IN = 0

    def __init__(self, number, mode=0, value=None):
        self.number = number
        self.v = value or 0
        PINS[number] = self

    def value(self, v=None):
        if v is None:
            if self.number == 7:  # BUSY through the multiplexer
                return 0 if MODEL.antennas[selected()].present else 1
            return self.v
        self.v = v
        return None


def selected():
    n = 0
    for bit, pin in enumerate((2, 3, 4, 5)):
        n |= PINS[pin].v << bit
    return n


class SPI:
    def __init__(self, *args, **kwargs):
        self.deferred = None

    def _check_selected(self):
        if PINS[6].v != 0:
            raise AssertionError("SPI traffic with no NSS low")

    def write(self, tx):
        self._check_selected()
        tx = bytes(tx)
        if tx[0] in READ_COMMANDS:
            self.deferred = tx
        else:
            CHIPS[selected()].exchange(tx, 0)

    def read(self, n, fill=0xFF):
        self._check_selected()
        tx, self.deferred = self.deferred, None
        if tx is None:
            raise AssertionError("SPI read with no read command before it")
        return CHIPS[selected()].exchange(tx, n)


class WDT:
    def __init__(self, timeout=0):
        self.timeout = timeout

    def feed(self):
        FEEDS[0] += 1
        if time.ticks_diff(time.ticks_ms(), START) >= RUN_MS[0]:
            raise KeyboardInterrupt  # ends the run (run() restarts on Exception only)


def reset_cause():
    return PWRON_RESET


def unique_id():
    return b"\x78\x56\x34\x12\x00\x00\x00\x01"


def reset():
    raise SystemExit(0)
