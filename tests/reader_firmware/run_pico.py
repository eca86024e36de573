"""reader_firmware/pico.py, unmodified, under MicroPython's unix port with a stand-in
``machine`` (pico_stubs/machine.py): its SPI select, BUSY handshake, USB port (stdin and
stdout), watchdog and reset reasons. Usage:
``micropython run_pico.py REPO_ROOT MARKER_PATH < host-commands > board-bytes``."""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tests/reader_firmware/pico_stubs")

import machine

machine.MODEL.place(3, bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 6]))
machine.MODEL.place(3, bytes([0xE0, 0x04, 1, 2, 3, 4, 5, 0x16]))  # a stack sharing a slot
machine.MODEL.antennas[5].present = False  # a front end that is not there

from reader_firmware import pico  # noqa: E402

pico.MARKER = sys.argv[2]
try:  # noqa: SIM105  (MicroPython has no contextlib)
    pico.run()
except KeyboardInterrupt:
    pass
