"""Runs unmodified under MicroPython's unix port and under CPython: the firmware's encoder,
message loop and PN5180 driver (ISO 15693 anti-collision) over the emulated front ends;
prints the inventory requests per antenna, then every byte sent, one write a line, in hex.
tests/reader_firmware/test_micropython.py compares the two interpreters' output and
decodes it with firmware_bridge. Usage: ``micropython mpy_check.py REPO_ROOT``."""

import sys

sys.path.insert(0, sys.argv[1])

from reader_firmware import protocol as P
from reader_firmware.emulation.pn5180_emu import EmulatedPN5180
from reader_firmware.emulation.table_model import TableModel
from reader_firmware.firmware import Firmware
from reader_firmware.pn5180 import PN5180

A = bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 6])
B = bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 7])
C = bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 0x16])  # same first slot as A: a masked round


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
model = TableModel(4, 5)
model.place(1, A)
model.place(1, B)
model.place(1, C)
model.place(3, bytes([0xE0, 0x04, 9, 9, 9, 9, 9, 9]))
model.antennas[3].flicker = 0.4  # a flickering card
model.antennas[2].present = False  # a missing front end
chips = [EmulatedPN5180(model, a) for a in range(4)]
fw = Firmware([PN5180(c) for c in chips], port, 0x12345678, P.RESET_WATCHDOG, 0)
for now in range(0, 120, 10):
    fw.poll(now)
model.place(0, A)
port.inp = P.seal(P.PING, 0, b"") + P.seal(P.GET_SNAPSHOT, 1, bytes([0xFF]))
port.inp += P.seal(P.SET_CONFIG, 2, P.Config(20, 100, False, True, 5).body())
for now in range(120, 400, 10):
    fw.poll(now)
port.inp = P.seal(P.RESET, 3, b"")
fw.poll(400)
print(P.crc16(b"123456789"))
print(" ".join(str(len(c.requests)) for c in chips))
for chunk in port.out:
    print(hexline(chunk))
