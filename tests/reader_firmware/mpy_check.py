"""Runs unmodified under MicroPython's unix port and under CPython: the firmware's encoder
and message loop with a scripted front end; prints every byte it sends, one frame a line, in
hex. tests/reader_firmware/test_micropython.py compares the two interpreters' output and
decodes it with firmware_bridge. Usage: ``micropython mpy_check.py REPO_ROOT``."""

import sys

sys.path.insert(0, sys.argv[1])

from reader_firmware import protocol as P
from reader_firmware.firmware import Firmware
from reader_firmware.pn5180 import FrontEndError, Inventory

A = bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 6])
B = bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 7])


class Front:
    """A front end that reads what the script lays on it."""

    def __init__(self, tags, fails=False):  # type: ignore[no-untyped-def]
        self.tags = tags
        self.fails = fails

    def init(self):  # type: ignore[no-untyped-def]
        if self.fails:
            raise FrontEndError("no answer", 0xFFFF)

    def inventory(self, probe_first):  # type: ignore[no-untyped-def]
        inv = Inventory()
        inv.uids = list(self.tags)
        inv.air_us = 3000.0 + 5000.0 * len(self.tags)
        return inv


class Port:
    def __init__(self):  # type: ignore[no-untyped-def]
        self.out = []
        self.inp = b""

    def read(self):  # type: ignore[no-untyped-def]
        data, self.inp = self.inp, b""
        return data

    def write(self, data):  # type: ignore[no-untyped-def]
        self.out.append(data)
        return True


def hexline(b):  # type: ignore[no-untyped-def]
    return " ".join(f"{x:02x}" for x in b)


port = Port()
fronts = [Front([]), Front([A, B]), Front([], True)]
fw = Firmware(fronts, port, 0x12345678, P.RESET_WATCHDOG, 0)
for now in range(0, 120, 10):
    fw.poll(now)
fronts[0].tags = [A]
port.inp = P.seal(P.PING, 0, b"") + P.seal(P.GET_SNAPSHOT, 1, bytes([0xFF]))
port.inp += P.seal(P.SET_CONFIG, 2, P.Config(20, 100, False, True, 5).body())
for now in range(120, 400, 10):
    fw.poll(now)
port.inp = P.seal(P.RESET, 3, b"")
fw.poll(400)
print(P.crc16(b"123456789"))
for chunk in port.out:
    print(hexline(chunk))
